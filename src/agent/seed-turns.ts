/**
 * The turns a run starts from: the session's, cut where a crash or an
 * interruption left a call without its result.
 */
import type { SessionTurn } from '../core/content'
import type { sessionAtStart } from './durable-start'
import type { AgentOptions, AgentRunOptions } from './options'
import type { SteeringQueues } from './steering'
import { filterUnresolvedToolUses } from '../wire/pairing'
import { replaceSupersededTurns } from '../wire/superseded'
import { abortedTurns, showAborted } from './durable-start'

/**
 * The conversation a run starts from: nothing without a session; the whole
 * session otherwise, or one earlier run's turns with `resumeRunId`. Tool calls
 * that never got a result (a process killed mid-tool) are left out, so the
 * model is asked again instead of seeing a call with no answer.
 */
export function seedTurns(env: { agent: AgentOptions, queues: SteeringQueues }, options: AgentRunOptions, start?: Awaited<ReturnType<typeof sessionAtStart>>): SessionTurn[] {
  const session = env.agent.session
  const queued = env.queues.steering.size > 0
  const stored = start?.turns ?? session?.turns ?? []
  const cutOff = env.agent.durable ? abortedTurns : resumableTurns
  if (options.resumeRunId !== undefined) {
    if (!session)
      throw new TypeError('resumeRunId needs an agent with a session')
    if (options.prompt === undefined)
      throw new TypeError('resumeRunId needs a prompt: the instruction to continue with')
    const turns = stored.filter(turn => turn.runId === options.resumeRunId)
    if (turns.length === 0)
      throw new TypeError(`Run "${options.resumeRunId}" has no recorded turns in session "${session.id}"`)
    return cutOff(turns)
  }
  const turns = session ? cutOff(stored) : []
  if (session && env.agent.durable)
    showAborted(session, turns)
  if (options.prompt === undefined && !queued && turns.length === 0)
    throw new TypeError('agent.run() needs a prompt (or a session with turns to continue); an empty or whitespace-only prompt counts as none')
  return turns
}

/**
 * Turns to resume from. When the last assistant turn had tool calls that never
 * got results, that turn was interrupted: it is left out entirely (not just
 * its calls), so the model answers the last user message afresh instead of
 * seeing a half-finished turn as its final word.
 */
export function resumableTurns(recorded: readonly SessionTurn[]): SessionTurn[] {
  const turns = replaceSupersededTurns(recorded)
  const filtered = filterUnresolvedToolUses(turns)
  const lastAssistant = turns.findLast(turn => turn.role === 'assistant')
  if (!lastAssistant || filtered.includes(lastAssistant))
    return filtered
  return filtered.filter(turn => turn.id !== lastAssistant.id)
}
