import type { ToolResultBlock, ToolResultMetadata } from '../core/content'
import type { CallAnswer } from '../policies/policy'
import type { ToolOutcome, ToolOutput } from '../tools/types'
import type { RunContext } from './run-context'
import { capResultText } from './result-size'
import { wallThatEnded } from './wall-deadline'

/**
 * The answer a call got before the transforms and the result phase: what the
 * tool (or whoever answered in its place) said, and who that was. Shared by
 * the steps of the call pipeline (`./call-pipeline.ts`).
 */
export interface Answer {
  output: ToolOutput
  isError: boolean
  outcome?: ToolOutcome
  durationMs: number
  /** Whether the tool ran, and who answered in its place when it did not (for the result phase). */
  answer: CallAnswer
  /** The call waits for approval: it is answered by a placeholder and recorded in the run state (see `./approval.ts`). */
  pending?: true
  /** Data the loop records on the result for the host (the approval decision), under what the transforms add. */
  metadata?: ToolResultMetadata
}

/** A call's answer as recorded, and how it was reached. */
export interface AnsweredCall {
  result: ToolResultBlock
  /** Whether the tool ran, or who answered in its place. */
  answer: CallAnswer
  outcome?: ToolOutcome
  /** Set when the call was left waiting for approval (its result is a placeholder). */
  pending?: true
}

export const RAN: CallAnswer = Object.freeze({ kind: 'ran' })
export const LOOP_REFUSED: CallAnswer = Object.freeze({ kind: 'refused', by: 'loop' })
export const HOST_REFUSED: CallAnswer = Object.freeze({ kind: 'refused', by: 'host' })
export const HOST_SUBSTITUTED: CallAnswer = Object.freeze({ kind: 'substituted', by: 'host' })
export const POLICY_REFUSED: CallAnswer = Object.freeze({ kind: 'refused', by: 'policy' })
export const POLICY_SUBSTITUTED: CallAnswer = Object.freeze({ kind: 'substituted', by: 'policy' })

/** A refused call's answer; a gate that gave no reason still says who refused it. */
export function blocked(reason: string | undefined, by: CallAnswer): Answer {
  return failure(`Blocked: ${reason || 'the call was refused by policy'}`, by)
}

/** An error answer to a call that did not run (the loop's own refusal unless `by` says otherwise). */
export function failure(message: string, by: CallAnswer = LOOP_REFUSED): Answer {
  return { output: message, isError: true, durationMs: 0, answer: by }
}

/**
 * What an aborted call answers: a budget stop names its knob, so the model (and
 * a reader) can tell it from a cancel. A nested call can also be cut alone, by
 * the tool that made it (its own signal, or that tool finishing first).
 */
export function abortedMessage(run: RunContext, started: boolean): string {
  const stage = started ? 'while this tool was running' : 'before this tool call started'
  if (!run.signal.aborted)
    return `Aborted: the tool that made this call cancelled it ${stage}.`
  const wall = wallThatEnded(run)
  return wall ? `Aborted: the run's time budget (${wall.knob}) ran out ${stage}.` : `Aborted: the run was cancelled ${stage}.`
}

/** What an error result says when not even the thrown value's text could be read. */
export const UNREADABLE_THROWN = 'a value was thrown whose text could not be read'

/**
 * The text of a thrown value, for an error result or a log line. A tool may
 * throw (or reject with) anything: an Error whose `message` getter throws, an
 * object with no prototype (which `String` cannot convert), a Proxy whose
 * traps throw, a Symbol. Reading it here never throws, since a throw from the
 * place that answers a call would leave the call without a result; and the
 * text is capped like any result (`capResultText`).
 */
export function errorMessage(error: unknown): string {
  let text: string
  try {
    text = String(error instanceof Error ? error.message : error)
  }
  catch {
    return UNREADABLE_THROWN
  }
  return capResultText(text, 'message')
}
