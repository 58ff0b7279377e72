/**
 * Why a run returned, one key per way out of the loop that is not a thrown
 * error, so a host never has to guess whether a limit cut the run short.
 * `StopReason` is derived from these keys. A host whose own policy ends runs
 * for a reason of its own adds it here by declaration merging, instead of
 * reusing a value that means something else:
 *
 * ```ts fragment
 * declare module 'zidane' {
 *   interface StopReasons { 'quota-exhausted': true }
 * }
 * ```
 */
export interface StopReasons {
  /** The model answered without calling tools. */
  'completed': true
  /** `behavior.maxTurns` was reached. */
  'max-turns': true
  /** `agent.abort()`, the run's `signal`, or a guard that aborts. */
  'aborted': true
  /** `pauseSignal` stopped the run at a turn boundary; another run continues it. */
  'paused': true
  /** `agent.suspend()` (or a host's own suspension, such as a pending approval) stopped the run at a turn boundary; `agent.resume()` continues it. */
  'suspended': true
  /** `maxConsecutivePauseTurns` empty pause turns in a row. */
  'pause-exhausted': true
  /** `maxConsecutiveLengthResumes` output-cap resumes in a row. */
  'length-exhausted': true
  /** `maxConsecutiveRefusalResumes` refusal resumes in a row. */
  'refusal-exhausted': true
  /** The last turn hit the output cap and output-cap resume is off. */
  'length': true
  /** The model refused and refusal recovery is off (`maxConsecutiveRefusalResumes: 0`). */
  'content-filter': true
  /**
   * `behavior.schema` is set and the model gave no valid output within its
   * repair turns (`maxOutputRepairs`) or by the last allowed turn;
   * `stats.text` holds the raw final answer and `stats.outputError` what failed.
   */
  'output-invalid': true
}

/** Why a run returned: one of the keys of `StopReasons` (the built-in ones, and any a host declared). */
export type StopReason = keyof StopReasons & string
