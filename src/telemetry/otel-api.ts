import type * as OtelApiModule from '@opentelemetry/api'
import { MissingPeerDependencyError } from '../errors'

/** The `@opentelemetry/api` module. */
export type OtelApi = typeof OtelApiModule

let loading: Promise<OtelApi> | undefined

/**
 * Load `@opentelemetry/api` once, on first use: only an agent with
 * `telemetry` asks for it, so a program without telemetry never reads it
 * (`test/package/telemetry-loads.test.ts`). A missing peer is a
 * `MissingPeerDependencyError`; a failed load is tried again next time.
 */
export function loadOtelApi(): Promise<OtelApi> {
  loading ??= import('@opentelemetry/api').then(
    module => module,
    (error: unknown) => {
      loading = undefined
      throw isMissing(error) ? new MissingPeerDependencyError('@opentelemetry/api', 'AgentOptions.telemetry', { cause: error }) : error
    },
  )
  return loading
}

function isMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown, message?: unknown }
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND')
    && typeof message === 'string' && message.includes('@opentelemetry/api')
}
