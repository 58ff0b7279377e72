import type { SessionTurn } from '../core/content'
import type { ToolOutput } from '../core/tool-io'
import type { DedupHasher } from '../knobs/budget-knobs'
import type { BatchCall, BehaviorPolicy, CallDecision } from './policy'
import { mergeObjects } from '../core/merge-objects'
import { debugLog } from '../debug'

/** One tool's last recorded call: the key its hasher gave and the result the model got. */
export interface DedupRecord {
  readonly key: string
  readonly result: ToolOutput
}

/**
 * The last record per tool, and whether the session's earlier turns were
 * read into it yet (done at the first gated call of a listed tool, so a run
 * continues the session's cache instead of starting an empty one).
 */
export interface DedupToolsState {
  readonly seeded: boolean
  readonly last: Readonly<Record<string, DedupRecord>>
}

/** The hasher's key for a call, or `undefined` when the call is not cacheable (or the hasher throws). */
export function dedupKey(hasher: DedupHasher, input: Readonly<Record<string, unknown>>): string | undefined {
  try {
    const key: unknown = hasher(input)
    return typeof key === 'string' && key !== '' ? key : undefined
  }
  catch (error) {
    debugLog('a dedupTools hasher threw; the call runs without dedup', error)
    return undefined
  }
}

interface RecordedCall {
  readonly name: string
  readonly input: Record<string, unknown>
}

/**
 * The session's most recent successful, cacheable call of each listed tool,
 * as the live policy would have recorded it. A result answers a call of the
 * assistant turn just before it, matched by id and, when a turn reused an id,
 * by position among the calls with that id: call ids are the model's to pick,
 * and a repeated one must never pair one tool's output with another tool.
 */
function seedFrom(turns: readonly SessionTurn[], hashers: Readonly<Record<string, DedupHasher>>): Record<string, DedupRecord> {
  const last: Record<string, DedupRecord> = Object.create(null)
  // Calls of the latest assistant turn not answered yet, per id, in call order.
  let open = new Map<string, RecordedCall[]>()
  for (const turn of turns) {
    if (turn.aborted)
      continue
    if (turn.content.some(block => block.type === 'tool_call'))
      open = new Map()
    for (const block of turn.content) {
      if (block.type === 'tool_call') {
        const queue = open.get(block.id) ?? []
        queue.push({ name: block.name, input: block.input })
        open.set(block.id, queue)
      }
      else if (block.type === 'tool_result') {
        const call = open.get(block.callId)?.shift()
        const hasher = call && hasherOf(hashers, call.name)
        const key = hasher && block.isError !== true ? dedupKey(hasher, call.input) : undefined
        if (call && key !== undefined)
          last[call.name] = { key, result: block.output }
      }
    }
  }
  return last
}

function hasherOf(hashers: Readonly<Record<string, DedupHasher>> | undefined, name: string): DedupHasher | undefined {
  return hashers && Object.hasOwn(hashers, name) && typeof hashers[name] === 'function' ? hashers[name] : undefined
}

function seeded(state: DedupToolsState, turns: readonly SessionTurn[], hashers: Readonly<Record<string, DedupHasher>>): DedupToolsState {
  return state.seeded ? state : { seeded: true, last: seedFrom(turns, hashers) }
}

function recordOf(state: DedupToolsState, name: string): DedupRecord | undefined {
  return Object.hasOwn(state.last, name) ? state.last[name] : undefined
}

/**
 * `dedupTools`: a call whose hasher key equals the key of that tool's last
 * recorded call in the session is answered with the recorded result instead
 * of running. The replay is a `substitute`, so the host's `tool:gate` sees it
 * as `result`, and `tool:transform` and `tool:after` fire as for a real call.
 * Only the most recent record per tool is kept; error results are never
 * recorded (a failure depends on state and must be retried for real).
 *
 * Replays are decided as early as they are certain. In the batch gate, a
 * call that matches the record as it stands, before any call of that tool in
 * the batch runs, is a replay: later gates (the repeat guard) see it as
 * answered and never count it. A call whose answer depends on a sibling of
 * the same batch finishing first is decided by the per-call gate, when it is
 * about to run: concurrency-safe siblings are gated before any of them
 * finishes, so they never replay each other; calls that are not
 * concurrency-safe run in order and do. Without a session the policy is off:
 * the cache is the session's.
 */
export const dedupTools: BehaviorPolicy<DedupToolsState> = {
  name: 'dedup-tools',
  enabled: (behavior, run) => run.session !== undefined && behavior.dedupTools !== undefined && Object.keys(behavior.dedupTools).length > 0,
  initialState: () => ({ seeded: false, last: {} }),
  gateBatch({ behavior, run, state, calls }) {
    const hashers = behavior.dedupTools!
    if (!calls.some(call => hasherOf(hashers, call.name)))
      return
    const next = seeded(state, run.session!.turns, hashers)
    // Tools one of whose calls in this batch will run: their record is no longer certain.
    const running = new Set<string>()
    const decisions = calls.map((call: BatchCall): CallDecision | undefined => {
      const hasher = hasherOf(hashers, call.name)
      if (!hasher || call.decided || running.has(call.name))
        return undefined
      const key = dedupKey(hasher, call.input)
      const record = recordOf(next, call.name)
      if (key !== undefined && record?.key === key)
        return { type: 'substitute', result: record.result }
      running.add(call.name)
      return undefined
    })
    return { decisions, ...(next === state ? {} : { state: next }) }
  },
  gateCall({ behavior, run, state, call, decided }) {
    const hasher = hasherOf(behavior.dedupTools, call.name)
    if (!hasher || decided)
      return
    const next = seeded(state, run.session!.turns, behavior.dedupTools!)
    const key = dedupKey(hasher, call.input)
    const record = recordOf(next, call.name)
    const replay = key !== undefined && record?.key === key
    if (!replay)
      return next === state ? undefined : { state: next }
    return { decision: { type: 'substitute', result: record.result }, ...(next === state ? {} : { state: next }) }
  },
  result({ behavior, run, state, call, result, isError }) {
    const hasher = hasherOf(behavior.dedupTools, call.name)
    if (!hasher || isError)
      return
    const key = dedupKey(hasher, call.input)
    if (key === undefined)
      return
    const base = seeded(state, run.session!.turns, behavior.dedupTools!)
    return { state: { seeded: true, last: mergeObjects(base.last, { [call.name]: { key, result } }) } }
  },
}
