/**
 * How a run with a durable runtime starts from the session: a replay from
 * the session as its first execution found it, a resumed run with the model
 * output a crash cut off kept as an `aborted` turn. See docs/durable.md.
 */

import type { SessionTurn } from '../core/content'
import type { RunEffects } from '../core/effects'
import type { Session } from '../session/session'
import type { SessionRun } from '../session/types'
import { mergeObjects } from '../core/merge-objects'
import { filterUnresolvedToolUses } from '../wire/pairing'
import { replaceSupersededTurns } from '../wire/superseded'

/**
 * Turns to resume a durable run from: like `resumableTurns`, but the
 * interrupted assistant turn stays, marked `aborted` (the transcript shows
 * what the model said before the process died; the wire leaves it out, so
 * the request is sent again), whole: its unanswered calls stay in the
 * transcript, since no request carries an aborted turn.
 */
export function abortedTurns(recorded: readonly SessionTurn[]): SessionTurn[] {
  // A results turn rewritten after an approval stands in for the one it supersedes, as in `resumableTurns`.
  const turns = replaceSupersededTurns(recorded)
  const filtered = filterUnresolvedToolUses(turns)
  const lastAssistant = turns.findLast(turn => turn.role === 'assistant')
  if (!lastAssistant || filtered.includes(lastAssistant))
    return filtered
  const rebuilt: SessionTurn = lastAssistant.aborted ? lastAssistant : mergeObjects(lastAssistant, { aborted: true })
  const kept = new Map(filtered.map(turn => [turn.id, turn]))
  return turns.flatMap((turn) => {
    if (turn === lastAssistant)
      return [rebuilt]
    const survivor = kept.get(turn.id)
    return survivor ? [survivor] : []
  })
}

/**
 * The session handle shows a rebuilt aborted turn as such, so a transcript
 * read from it says the output was cut off. The store keeps the turn as it
 * was written (stores only append); every durable resume rebuilds it the same way.
 */
export function showAborted(session: Session, seed: readonly SessionTurn[]): void {
  const aborted = seed.findLast(turn => turn.aborted === true)
  if (!aborted)
    return
  // The handle's own array (a session exposes it read-only to everyone else).
  const turns = session.turns as SessionTurn[]
  const index = turns.findLastIndex(turn => turn.id === aborted.id)
  if (index !== -1 && turns[index].aborted !== true)
    turns[index] = aborted
}

/** The session as a replay's first execution found it: its turns and runs then, and the ids of the turns stored since. */
export interface SessionAtStart {
  readonly turns: readonly SessionTurn[]
  readonly runs: readonly SessionRun[]
  readonly laterTurnIds: ReadonlySet<string>
}

export async function sessionAtStart(session: Session, effects: RunEffects): Promise<SessionAtStart> {
  const counts = await effects.step('run:session-at-start', async () => ({ turns: session.turns.length, runs: session.runs.length }))
  const turns = session.turns.slice(0, counts.turns)
  const later = new Set<string>()
  for (let i = counts.turns; i < session.turns.length; i++) later.add(session.turns[i].id)
  return { turns, runs: session.runs.slice(0, counts.runs), laterTurnIds: later }
}
