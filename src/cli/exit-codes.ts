/**
 * The process's exit code for each way a run can end, so a script or CI step
 * can tell "done" from "ran out of turns" from "the budget stopped it"
 * without reading the output. The table is in docs/cli.md.
 */

import type { StopReason } from '../core/stop-reason'
import { AgentAbortedError, AgentBudgetExceededError, AgentLengthResumeExhaustedError } from '../errors'
import { UsageError } from './args'

export const EXIT_CODES = Object.freeze({
  /** The model finished its answer. */
  completed: 0,
  /** The run threw (a provider error after retries, a session store error, a lease held by another process, …). */
  error: 1,
  /** The command line or the environment cannot run: a bad flag, no provider key, a missing session. */
  usage: 2,
  /** `--max-turns` was reached. */
  maxTurns: 3,
  /** `--max-cost` (or another run budget) was crossed. */
  budget: 4,
  /** The model could not finish: it hit its output cap or refused, or stopped making progress. */
  unfinished: 5,
  /** The run stopped at a boundary to be continued later (`--resume`). */
  paused: 6,
  /** Ctrl-C: the run was stopped; the session is consistent and `--resume` continues it. 128 + SIGINT, as shells report it. */
  interrupted: 130,
} as const)

export type ExitCode = typeof EXIT_CODES[keyof typeof EXIT_CODES]

/** Every stop reason has its code; a new reason fails to compile here until it gets one. */
const BY_STOP_REASON: Readonly<Record<StopReason, ExitCode>> = {
  'completed': EXIT_CODES.completed,
  'max-turns': EXIT_CODES.maxTurns,
  'aborted': EXIT_CODES.interrupted,
  'paused': EXIT_CODES.paused,
  'suspended': EXIT_CODES.paused,
  'pause-exhausted': EXIT_CODES.unfinished,
  'length-exhausted': EXIT_CODES.unfinished,
  'refusal-exhausted': EXIT_CODES.unfinished,
  'length': EXIT_CODES.unfinished,
  'content-filter': EXIT_CODES.unfinished,
  'output-invalid': EXIT_CODES.unfinished,
}

/** The exit code of a run that returned with `stopReason`. */
export function exitCodeForStop(stopReason: StopReason): ExitCode {
  return BY_STOP_REASON[stopReason] ?? EXIT_CODES.error
}

/** The exit code of a run or command that threw `error`. */
export function exitCodeForError(error: unknown): ExitCode {
  if (error instanceof UsageError)
    return EXIT_CODES.usage
  if (error instanceof AgentBudgetExceededError)
    return EXIT_CODES.budget
  if (error instanceof AgentLengthResumeExhaustedError)
    return EXIT_CODES.unfinished
  if (error instanceof AgentAbortedError)
    return EXIT_CODES.interrupted
  return EXIT_CODES.error
}
