/**
 * Which failures of a run Restate may retry. Restate retries any error that
 * is not a `TerminalError`, by default for a long time; a run that failed
 * for good (a budget, a provider refusal, a bad input, an oversized journal
 * entry) would fail the same way on every retry. So every error the spec
 * says a run throws becomes terminal. Left retryable: Restate's own
 * signals (a suspension, a closed invocation), and a session store that
 * could not be reached, which a later attempt may find back.
 */
import type { TerminalError } from '@restatedev/restate-sdk'
import { DurablePayloadTooLargeError, SessionStoreError } from '../../errors'
import { restateSdk } from './sdk'

/** HTTP-like codes the ingress answers with. */
const CODE_BY_NAME: Readonly<Record<string, number>> = {
  [DurablePayloadTooLargeError.name]: 413,
  RestateInputError: 400,
}

/** `error` as Restate should see it: a terminal error, or the error itself when a retry may help. */
export function asRestateFailure(error: unknown): unknown {
  const sdk = restateSdk('restateAgent')
  if (error instanceof sdk.TerminalError)
    return error
  if (error instanceof sdk.RestateError)
    return error
  if (error instanceof SessionStoreError && (error.code === 'io' || error.code === 'http'))
    return error
  return terminal(error)
}

function terminal(error: unknown): TerminalError {
  const sdk = restateSdk('restateAgent')
  const name = error instanceof Error ? error.name : 'Error'
  const message = error instanceof Error ? `${name}: ${error.message}` : String(error)
  return new sdk.TerminalError(message, { errorCode: CODE_BY_NAME[name] ?? 500 })
}

/** A handler's input that cannot start a run. */
export class RestateInputError extends Error {
  override name = 'RestateInputError'
}
