import type { SessionContentBlock, SessionTurn } from '../core/content'
import type { ToolCall, TurnResult } from '../providers/types'
import { mergeObjects } from '../core/merge-objects'
import { fitToolCallId } from '../providers/tool-call-ids'

/**
 * Tool-call ids that a server reuses from turn to turn. Some servers and
 * gateways number the calls of each answer from zero (`call_0`, `ollama_0`),
 * so every turn's first call has the id of the first turn's. Pairing on the
 * wire keys calls by id across the whole conversation and drops a call whose
 * id came before, with its result: the model no longer saw its later calls.
 * A call whose id an earlier turn already used is recorded under
 * `<id>_<n>`, the first such name no earlier call has: a pure function of
 * the turns before it, so a replayed or resumed run names it the same way.
 * Calls sharing an id within one turn are renamed the same way, all but the
 * first: an API refuses a message whose calls share an id, and pairing would
 * keep only one of them and its result. An id of thousands of characters is
 * kept as its start and a hash of the whole: the session stores it with the
 * call and its result, and every later request would carry it.
 */

/** The ids of the tool calls of a run's turns, and how many turns were read. */
interface SeenIds {
  read: number
  ids: Set<string>
  /**
   * Per base id, a suffix below which every `<base>_<n>` (from 2) is in `ids`. `ids` only grows, so the bound
   * only rises: it is a function of the turns alone, and a resumed run finds the same names. Without it, a
   * server numbering every answer's calls from `call_0` made turn t try t suffixes: 8,000 turns took 50 s.
   */
  usedBelow: Map<string, number>
}

const seenByTurns = new WeakMap<readonly SessionTurn[], SeenIds>()

/** The ids of every tool call in `turns`, read once per turn however often asked. */
function seenIds(turns: readonly SessionTurn[]): SeenIds {
  let seen = seenByTurns.get(turns)
  if (!seen || seen.read > turns.length) {
    seen = { read: 0, ids: new Set(), usedBelow: new Map() }
    seenByTurns.set(turns, seen)
  }
  for (; seen.read < turns.length; seen.read++) {
    for (const block of turns[seen.read].content) {
      if (block.type === 'tool_call')
        seen.ids.add(block.id)
    }
  }
  return seen
}

/** The first suffix from 2 whose `<base>_<n>` no earlier call has, resuming where the last search stopped. */
function firstUnseenSuffix(seen: SeenIds, base: string): number {
  let n = seen.usedBelow.get(base) ?? 2
  while (seen.ids.has(`${base}_${n}`)) n++
  seen.usedBelow.set(base, n)
  return n
}

/** Longest call id a session keeps as it came: far above any real server's (OpenAI's and Anthropic's are under 64). */
export const MAX_CALL_ID_CHARS = 256
/** Length of the id an over-long one is kept under: its readable start and a hash of the whole. */
const SHORTENED_CALL_ID_CHARS = 128

/**
 * `result` with each call renamed whose id is over `MAX_CALL_ID_CHARS`
 * (kept as its start and a hash of the whole), or whose id an earlier turn
 * of `turns` used, or an earlier call of the same turn; `result` itself when
 * none was.
 */
export function uniqueCallIds(turns: readonly SessionTurn[], result: TurnResult): TurnResult {
  if (result.toolCalls.length === 0)
    return result
  const seenRecord = seenIds(turns)
  const seen = seenRecord.ids
  if (!needsRenaming(seen, result.toolCalls))
    return result
  const kept = (id: string): string => id.length > MAX_CALL_ID_CHARS ? fitToolCallId(id, SHORTENED_CALL_ID_CHARS) : id
  const own = new Set(result.toolCalls.map(call => kept(call.id)))
  const taken = new Set<string>()
  // Per base, the suffix to try next. The sets a name is checked against only grow, so a suffix found used
  // stays used: the search resumes where it stopped. Starting at 2 for every repeat made an answer of
  // 20,000 calls sharing one id quadratic (two minutes of the agent's thread).
  const nextSuffix = new Map<string, number>()
  // Each call's recorded id, in the order of the calls.
  const names = result.toolCalls.map((call) => {
    const base = kept(call.id)
    let name = base
    if (seen.has(name) || taken.has(name)) {
      // Every suffix below the first unseen one is taken by an earlier turn: starting there finds the same name.
      let n = nextSuffix.get(base) ?? firstUnseenSuffix(seenRecord, base)
      // A fresh name is used by no earlier call and by no call of this turn.
      while (seen.has(`${base}_${n}`) || taken.has(`${base}_${n}`) || own.has(`${base}_${n}`)) n++
      nextSuffix.set(base, n + 1)
      name = `${base}_${n}`
    }
    taken.add(name)
    return name
  })
  const toolCalls = result.toolCalls.map((call, i): ToolCall => names[i] === call.id ? call : mergeObjects(call, { id: names[i]! }))
  // The content's call blocks take the same names: per id as it came, in the order its calls came.
  // Read through an index, not `shift()`: a queue of 100,000 calls sharing one id would be moved each time.
  const queues = new Map<string, { names: string[], next: number }>()
  result.toolCalls.forEach((call, i) => {
    const queue = queues.get(call.id)
    if (queue)
      queue.names.push(names[i]!)
    else
      queues.set(call.id, { names: [names[i]!], next: 0 })
  })
  const content = result.content.map((block): SessionContentBlock => {
    if (block.type !== 'tool_call')
      return block
    const queue = queues.get(block.id)
    const name = (queue && queue.next < queue.names.length ? queue.names[queue.next++] : undefined) ?? kept(block.id)
    return name === block.id ? block : mergeObjects(block, { id: name })
  })
  return mergeObjects(result, { content, toolCalls })
}

/** Whether any call's id is over-long, or repeats one of an earlier turn or of an earlier call of this turn. */
function needsRenaming(seen: ReadonlySet<string>, calls: readonly ToolCall[]): boolean {
  // Only a turn of several calls needs a set of its own.
  const own = calls.length > 1 ? new Set<string>() : undefined
  for (const call of calls) {
    if (call.id.length > MAX_CALL_ID_CHARS || seen.has(call.id) || own?.has(call.id))
      return true
    own?.add(call.id)
  }
  return false
}
