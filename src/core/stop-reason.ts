/**
 * Why a run returned. Every way out of the loop that is not a thrown error has
 * its own value, so a host never has to guess whether a limit cut the run short.
 *
 * - `completed`: the model answered without calling tools.
 * - `max-turns`: `behavior.maxTurns` was reached.
 * - `aborted`: `agent.abort()`, the run's `signal`, or a guard that aborts.
 * - `paused`: `pauseSignal` stopped the run at a turn boundary; another run continues it.
 * - `suspended`: not built yet; reserved for a checkpoint runtime, no run returns it today.
 * - `pause-exhausted`: `maxConsecutivePauseTurns` empty pause turns in a row.
 * - `length-exhausted`: `maxConsecutiveLengthResumes` output-cap resumes in a row.
 * - `refusal-exhausted`: `maxConsecutiveRefusalResumes` refusal resumes in a row.
 * - `length`: the last turn hit the output cap and output-cap resume is off.
 * - `content-filter`: the model refused and refusal recovery is off (`maxConsecutiveRefusalResumes: 0`).
 * - `output-invalid`: `behavior.schema` is set and the model gave no valid output within its repair turns
 *   (`maxOutputRepairs`) or by the last allowed turn; `stats.text` holds the raw final answer and
 *   `stats.outputError` what failed.
 */
export type StopReason
  = | 'completed'
    | 'max-turns'
    | 'aborted'
    | 'paused'
    | 'suspended'
    | 'pause-exhausted'
    | 'length-exhausted'
    | 'refusal-exhausted'
    | 'length'
    | 'content-filter'
    | 'output-invalid'
