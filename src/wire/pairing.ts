import type { SessionContentBlock, SessionMessage, SessionTurn, ToolResultBlock } from '../core/content'
import type { PairingRepair } from '../errors'
import { mergeObjects } from '../core/merge-objects'

/**
 * The output of the synthetic error result the pairing pass gives a tool call
 * that has no result on record. Fixed so that data pipelines can find (and
 * reject) transcripts the pass had to patch.
 */
export const SYNTHETIC_TOOL_RESULT_PLACEHOLDER
  = '[No result was recorded for this tool call: it was interrupted or its result was lost. Treat it as failed and call the tool again if you still need it.]'

export interface ToolPairingRepairResult {
  /** The repaired wire view; messages the pass did not touch are the input objects. */
  messages: SessionMessage[]
  /** What was repaired, ordered by `messageIndex` (indices into the input). */
  repairs: PairingRepair[]
}

/**
 * Make every tool call on the wire view answered by exactly one result in the
 * user message right after it, and every result answer a call in the assistant
 * message right before it: the shape every provider API insists on. Persisted
 * turns stay as they are; only this view changes.
 *
 * - A call with no result gets a synthetic error result
 *   (`SYNTHETIC_TOOL_RESULT_PLACEHOLDER`) in its follow-up user message, which
 *   is created when the call's message is last or followed by an assistant one.
 * - A result that answers no earlier call is dropped.
 * - A call reusing an earlier call's id is dropped along with its result (the
 *   results in the message after it that carry the id, beyond the one the
 *   first call keeps). Replaying both would hand the API two calls it cannot
 *   tell apart, and pairing the first call with the second one's output would
 *   show the model an answer to a question it did not ask there.
 * - A second result for the same call is dropped; the first one stays.
 * - A result sitting further away than the follow-up message (compaction can
 *   remove what was between) is moved into the follow-up when that lacks a
 *   result for the call, and dropped otherwise.
 * - A tool call in a user message cannot be sent and is dropped.
 *
 * Inserted results go after the results already in the follow-up, in the
 * order of their calls. A message emptied by the pass is dropped. Pure: the
 * input is never mutated, and a well-paired input comes back element-wise
 * identical with no repairs.
 */
export function repairToolPairing(messages: readonly SessionMessage[]): ToolPairingRepairResult {
  const plan = planRepairs(messages)
  if (plan.repairs.length === 0)
    return { messages: [...messages], repairs: [] }
  return { messages: applyPlan(messages, plan), repairs: plan.repairs.sort((a, b) => a.messageIndex - b.messageIndex) }
}

interface RepairPlan {
  repairs: PairingRepair[]
  /** Per input message, the positions of blocks to drop. */
  drops: Map<number, Set<number>>
  /** Per assistant message index, results to add to its follow-up (moved or synthetic). */
  additions: Map<number, ToolResultBlock[]>
}

interface CallSite {
  messageIndex: number
  /** Position among the calls of its message, to order inserted results. */
  order: number
}

function planRepairs(messages: readonly SessionMessage[]): RepairPlan {
  const plan: RepairPlan = { repairs: [], drops: new Map(), additions: new Map() }
  const calls = new Map<string, CallSite>()
  const answered = new Set<string>()
  // Dropped duplicate calls per message, so the result right after one goes with it.
  const duplicates = new Map<number, Map<string, number>>()

  const drop = (messageIndex: number, blockIndex: number) => {
    let set = plan.drops.get(messageIndex)
    if (!set)
      plan.drops.set(messageIndex, set = new Set())
    set.add(blockIndex)
  }
  const report = (kind: PairingRepair['kind'], action: PairingRepair['action'], callId: string, messageIndex: number) => {
    plan.repairs.push({ kind, action, callId, messageIndex })
  }
  const takeDuplicate = (messageIndex: number, id: string): boolean => {
    const counts = duplicates.get(messageIndex)
    const count = counts?.get(id) ?? 0
    if (count === 0)
      return false
    counts!.set(id, count - 1)
    return true
  }

  messages.forEach((message, j) => {
    // Results first: a result can only answer a call from an earlier message.
    message.content.forEach((block, k) => {
      if (block.type !== 'tool_result')
        return
      const id = block.callId
      const site = calls.get(id)
      if (!site) {
        drop(j, k)
        report('orphan-tool-result', 'dropped', id, j)
        return
      }
      const inPlace = j === site.messageIndex + 1 && message.role === 'user'
      if (inPlace && !answered.has(id)) {
        answered.add(id)
        return
      }
      drop(j, k)
      if (takeDuplicate(j - 1, id))
        return // reported with its duplicate call
      if (inPlace) {
        report('duplicate-tool-result', 'dropped', id, j)
      }
      else if (answered.has(id)) {
        report('stranded', 'dropped', id, j)
      }
      else {
        answered.add(id)
        addResult(plan, site.messageIndex, block)
        report('stranded', 'moved', id, j)
      }
    })
    let order = 0
    message.content.forEach((block, k) => {
      if (block.type !== 'tool_call')
        return
      if (message.role !== 'assistant') {
        drop(j, k)
        report('orphan-tool-call', 'dropped', block.id, j)
      }
      else if (calls.has(block.id)) {
        drop(j, k)
        let counts = duplicates.get(j)
        if (!counts)
          duplicates.set(j, counts = new Map())
        counts.set(block.id, (counts.get(block.id) ?? 0) + 1)
        report('duplicate-tool-call', 'dropped', block.id, j)
      }
      else {
        calls.set(block.id, { messageIndex: j, order: order++ })
      }
    })
  })

  for (const [id, site] of calls) {
    if (answered.has(id))
      continue
    addResult(plan, site.messageIndex, { type: 'tool_result', callId: id, output: SYNTHETIC_TOOL_RESULT_PLACEHOLDER, isError: true })
    report('orphan-tool-call', 'synthesized', id, site.messageIndex)
  }
  for (const added of plan.additions.values())
    added.sort((a, b) => calls.get(a.callId)!.order - calls.get(b.callId)!.order)
  return plan
}

function addResult(plan: RepairPlan, callMessageIndex: number, block: ToolResultBlock): void {
  const list = plan.additions.get(callMessageIndex)
  if (list)
    list.push(block)
  else
    plan.additions.set(callMessageIndex, [block])
}

function applyPlan(messages: readonly SessionMessage[], plan: RepairPlan): SessionMessage[] {
  const out: SessionMessage[] = []
  messages.forEach((message, j) => {
    const drops = plan.drops.get(j)
    const previous = messages[j - 1]
    const incoming = message.role === 'user' && previous?.role === 'assistant' ? plan.additions.get(j - 1) : undefined
    if (!drops && !incoming) {
      out.push(message)
    }
    else {
      let content = drops ? message.content.filter((_, k) => !drops.has(k)) : [...message.content]
      if (incoming) {
        const lastResult = content.findLastIndex(block => block.type === 'tool_result')
        content = [...content.slice(0, lastResult + 1), ...incoming, ...content.slice(lastResult + 1)]
      }
      if (content.length > 0)
        out.push(mergeObjects(message, { content }))
    }
    const additions = plan.additions.get(j)
    if (additions && messages[j + 1]?.role !== 'user')
      out.push({ role: 'user', content: additions })
  })
  return out
}

const REASONING_BLOCKS = new Set<SessionContentBlock['type']>(['thinking', 'redacted_thinking', 'provider_reasoning'])

/**
 * Prepare a run's turns for resuming: take back the tool calls of the last
 * assistant turn that no later turn answered (the run was killed while they
 * ran), so the resumed run asks the model again instead of replaying calls
 * with invented results.
 *
 * Precisely: only the last turn with role `assistant` is looked at. Each of
 * its `tool_call` blocks whose id has no `tool_result` in a later `user` turn
 * is removed. If what is left of the turn is nothing but reasoning (thinking,
 * redacted thinking, provider reasoning), the turn is removed too: reasoning
 * with no visible output says nothing, and some APIs refuse such a message.
 * Earlier gaps are left to `repairToolPairing` on the wire view. Other turns
 * are returned as the same objects; the input is never mutated.
 */
export function filterUnresolvedToolUses(turns: readonly SessionTurn[]): SessionTurn[] {
  const out = [...turns]
  const last = turns.findLastIndex(turn => turn.role === 'assistant')
  if (last < 0)
    return out
  const turn = turns[last]
  if (!turn.content.some(block => block.type === 'tool_call'))
    return out
  const answered = new Set<string>()
  for (let i = last + 1; i < turns.length; i++) {
    if (turns[i].role !== 'user')
      continue
    for (const block of turns[i].content) {
      if (block.type === 'tool_result')
        answered.add(block.callId)
    }
  }
  const content = turn.content.filter(block => block.type !== 'tool_call' || answered.has(block.id))
  if (content.length === turn.content.length)
    return out
  if (content.some(block => !REASONING_BLOCKS.has(block.type)))
    out[last] = mergeObjects(turn, { content })
  else
    out.splice(last, 1)
  return out
}
