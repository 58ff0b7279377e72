/** A decision that produced no answers, when the caller asked for a throw. */

/**
 * Why a decision produced no answers:
 * - `unavailable`: no capable provider, missing credentials, or a model the provider does not serve
 * - `auth`: the provider rejected the credential (401/403)
 * - `unsupported`: the input cannot be expressed on this provider's wire (e.g. images)
 * - `timeout` / `aborted`: the wall-clock cap was hit / the caller or the run cancelled
 * - `rate_limited` / `quota`: 429 or 529 / 402
 * - `invalid`: the request failed validation, or the model's answer was malformed
 * - `error`: anything else (5xx, network)
 */
export type DecisionFailureReason
  = | 'unavailable'
    | 'auth'
    | 'unsupported'
    | 'timeout'
    | 'aborted'
    | 'rate_limited'
    | 'quota'
    | 'invalid'
    | 'error'

/** The facts of a failed decision that `DecisionError` carries (a `DecisionFailure` fits). */
export interface DecisionErrorInit {
  decisionId: string
  reason: DecisionFailureReason
  message: string
  provider?: string
  model?: string
  error?: Error
}

/**
 * A decision that produced no answers, thrown only when the caller asked for
 * it (`decide(request, { throw: true })`); otherwise the same facts come back
 * as a `DecisionFailure` value.
 */
export class DecisionError extends Error {
  override name = 'DecisionError'
  readonly decisionId: string
  readonly reason: DecisionFailureReason
  readonly provider?: string
  readonly model?: string
  constructor(failure: DecisionErrorInit) {
    super(failure.message, failure.error === undefined ? undefined : { cause: failure.error })
    this.decisionId = failure.decisionId
    this.reason = failure.reason
    this.provider = failure.provider
    this.model = failure.model
  }
}
