import type { SessionTurn } from '../core/content'
import type { ToolOutput } from '../core/tool-io'
import type { DedupHasher } from '../knobs/budget-knobs'
import type { BehaviorPolicy } from './policy'
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

/** The session's most recent successful, cacheable call of each listed tool, as the live policy would have recorded it. */
function seedFrom(turns: readonly SessionTurn[], hashers: Readonly<Record<string, DedupHasher>>): Record<string, DedupRecord> {
  const last: Record<string, DedupRecord> = {}
  const calls = new Map<string, { name: string, input: Record<string, unknown> }>()
  for (const turn of turns) {
    if (turn.aborted)
      continue
    for (const block of turn.content) {
      if (block.type === 'tool_call' && Object.hasOwn(hashers, block.name)) {
        calls.set(block.id, { name: block.name, input: block.input })
      }
      else if (block.type === 'tool_result' && block.isError !== true) {
        const call = calls.get(block.callId)
        const key = call && dedupKey(hashers[call.name], call.input)
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

/**
 * `dedupTools`: a call whose hasher key equals the key of that tool's last
 * recorded call in the session is answered with the recorded result instead
 * of running. The replay is a per-call gate `substitute`, so the host's
 * `tool:gate` sees it as `result`, and `tool:transform` and `tool:after` fire
 * as for a real call. Only the most recent record per tool is kept; error
 * results are never recorded (a failure depends on state and must be retried
 * for real). Concurrency-safe calls of one batch are gated before any of them
 * finishes, so they never replay each other. Without a session the policy is
 * off: the cache is the session's.
 */
export const dedupTools: BehaviorPolicy<DedupToolsState> = {
  name: 'dedup-tools',
  enabled: (behavior, run) => run.session !== undefined && behavior.dedupTools !== undefined && Object.keys(behavior.dedupTools).length > 0,
  initialState: () => ({ seeded: false, last: {} }),
  gateCall({ behavior, run, state, call, decided }) {
    const hasher = hasherOf(behavior.dedupTools, call.name)
    if (!hasher || decided)
      return
    const next = state.seeded ? state : { seeded: true, last: seedFrom(run.session!.turns, behavior.dedupTools!) }
    const key = dedupKey(hasher, call.input)
    const record = Object.hasOwn(next.last, call.name) ? next.last[call.name] : undefined
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
    const seeded = state.seeded ? state.last : seedFrom(run.session!.turns, behavior.dedupTools!)
    return { state: { seeded: true, last: { ...seeded, [call.name]: { key, result } } } }
  },
}
