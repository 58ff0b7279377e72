/**
 * Some values a stream hands over are kept as they came: OpenRouter's
 * `reasoning_details` (replayed to the model that wrote them) and the content
 * of an Anthropic server tool's result (sent back with the next request).
 * They are recorded in the session and walked by recursive code on every
 * later request (the well-formed-text pass, `JSON.stringify`), so one nested
 * thousands of levels deep would overflow the stack on each of them: the
 * session could not be continued. A turn that carries one fails instead,
 * before anything of it is recorded, with the same depth limit as tool-call
 * arguments. `JSON.parse` itself does not recurse, so reading such a value
 * was never the problem.
 */

import { nestsDeeperThan } from '../../core/json-depth'
import { ClassifiedError } from '../../errors'
import { MAX_TOOL_INPUT_DEPTH } from '../tool-json'

/** Throw a retryable `server` error when `value` nests past `MAX_TOOL_INPUT_DEPTH`; `what` names it in the message. */
export function refuseOverDeepValue(value: unknown, provider: string, what: string): void {
  if (nestsDeeperThan(value, MAX_TOOL_INPUT_DEPTH)) {
    throw new ClassifiedError(
      `${provider} streamed ${what} nested more than ${MAX_TOOL_INPUT_DEPTH} levels deep; the turn was not recorded`,
      { kind: 'server', retryable: true, provider },
    )
  }
}
