import type { SessionTurn } from '../core/content'

/**
 * The conversation with each superseded turn replaced by the turn that
 * supersedes it (`SessionTurn.supersedes`), at the earlier turn's place: a
 * turn of tool results recorded again once calls that waited for approval
 * were answered. Turns stay as recorded in the session; only a run's view of
 * them changes. The input comes back as it is when nothing is superseded.
 */
export function replaceSupersededTurns(turns: readonly SessionTurn[]): readonly SessionTurn[] {
  let replacements: Map<string, SessionTurn> | undefined
  for (const turn of turns) {
    if (turn.supersedes !== undefined)
      (replacements ??= new Map()).set(turn.supersedes, turn)
  }
  if (!replacements)
    return turns
  const ids = new Set(turns.map(turn => turn.id))
  const out: SessionTurn[] = []
  for (const turn of turns) {
    if (turn.supersedes !== undefined && ids.has(turn.supersedes))
      continue
    // A replacement may itself be replaced (a call suspended twice): follow the chain to the last one.
    let current = turn
    for (let next = replacements.get(current.id); next; next = replacements.get(current.id))
      current = next
    out.push(current)
  }
  return out
}
