import type { SessionContentBlock, SessionTurn } from '../core/content'
import type { ToolCall, TurnResult } from '../providers/types'
import { mergeObjects } from '../core/merge-objects'

/**
 * Tool-call ids that a server reuses from turn to turn. Some servers and
 * gateways number the calls of each answer from zero (`call_0`, `ollama_0`),
 * so every turn's first call has the id of the first turn's. Pairing on the
 * wire keys calls by id across the whole conversation and drops a call whose
 * id came before, with its result: the model no longer saw its later calls.
 * A call whose id an earlier turn already used is recorded under
 * `<id>_<n>`, the first such name no earlier call has: a pure function of
 * the turns before it, so a replayed or resumed run names it the same way.
 * Calls sharing an id within one turn are left as they came: each still gets
 * its own result in the session.
 */

/** The ids of the tool calls of a run's turns, and how many turns were read. */
interface SeenIds {
  read: number
  ids: Set<string>
}

const seenByTurns = new WeakMap<readonly SessionTurn[], SeenIds>()

/** The ids of every tool call in `turns`, read once per turn however often asked. */
function seenIds(turns: readonly SessionTurn[]): Set<string> {
  let seen = seenByTurns.get(turns)
  if (!seen || seen.read > turns.length) {
    seen = { read: 0, ids: new Set() }
    seenByTurns.set(turns, seen)
  }
  for (; seen.read < turns.length; seen.read++) {
    for (const block of turns[seen.read].content) {
      if (block.type === 'tool_call')
        seen.ids.add(block.id)
    }
  }
  return seen.ids
}

/** `result` with each call whose id an earlier turn of `turns` used renamed; `result` itself when none was. */
export function uniqueCallIds(turns: readonly SessionTurn[], result: TurnResult): TurnResult {
  if (result.toolCalls.length === 0)
    return result
  const seen = seenIds(turns)
  let renamed: Map<string, string> | undefined
  for (const call of result.toolCalls) {
    if (!seen.has(call.id) || renamed?.has(call.id))
      continue
    let n = 2
    while (seen.has(`${call.id}_${n}`)) n++
    ;(renamed ??= new Map()).set(call.id, `${call.id}_${n}`)
  }
  if (!renamed)
    return result
  const names = renamed
  const content = result.content.map((block): SessionContentBlock => block.type === 'tool_call' && names.has(block.id) ? mergeObjects(block, { id: names.get(block.id)! }) : block)
  const toolCalls = result.toolCalls.map((call): ToolCall => names.has(call.id) ? mergeObjects(call, { id: names.get(call.id)! }) : call)
  return mergeObjects(result, { content, toolCalls })
}
