import type { HookHandler, StreamHookContext } from '../core/hook-context'

/**
 * `output:partial`: the structured output as the model writes it, before it
 * is validated. A preview only: a retried stream or a repair turn writes it
 * again, and the validated value is `stats.output`.
 */
export interface OutputPartialContext extends StreamHookContext {
  /** The final-answer call being written. */
  callId: string
  /** The JSON text this piece adds. */
  delta: string
  /** The output's JSON text so far. */
  text: string
  /**
   * The output so far as a value: `text` closed off and parsed, built when read. Treat it as read-only:
   * members already finished are shared with the values of later deltas.
   */
  readonly value: unknown
}

/** The structured-output events. */
export interface OutputHooks {
  'output:partial': HookHandler<OutputPartialContext>
}

/** The structured-output events by name; `satisfies` keeps it in step with `OutputHooks`. */
export const OUTPUT_HOOK_NAMES = {
  'output:partial': true,
} as const satisfies Record<keyof OutputHooks, true>
