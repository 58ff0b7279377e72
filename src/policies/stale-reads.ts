import type { ToolOutput } from '../core/tool-io'
import type { AgentBehavior } from '../knobs/behavior'
import type { StaleReadPolicy } from '../knobs/budget-knobs'
import type { BehaviorPolicy } from './policy'
import { callPath, confirmsChange, MUTATING_TOOLS, READ_TOOL, staleReadsStage } from '../wire/stages/stale-reads'

/** The mode `elideStaleReads` is in, or `undefined` when it is off (`true` is the legacy spelling of `'stub'`). */
export function staleReadMode(behavior: Readonly<AgentBehavior>): StaleReadPolicy | undefined {
  const value = behavior.elideStaleReads
  return value === true || value === 'stub' ? 'stub' : value === 'notice' ? 'notice' : undefined
}

/** The notice appended to a mutating tool's result; a tag, so hosts and models can tell it from the tool's own text. */
export function staleReadNotice(path: string): string {
  return `<stale-read path="${path}">Earlier read_file results for ${path} in this conversation are now out of date; read it again before relying on its content.</stale-read>`
}

function withNotice(output: ToolOutput, notice: string): ToolOutput {
  return typeof output === 'string' ? `${output}\n\n${notice}` : [...output, { type: 'text', text: notice }]
}

/**
 * Distinct paths `'notice'` remembers, the most recent kept. The list is run state, copied and checked whole at
 * every new read: unbounded, a turn of 20,000 reads of distinct files took 22 s; bounded, each read costs at most
 * this much. A mutation of a path read before the last 2,048 others gets no notice.
 */
export const MAX_TRACKED_READS = 2048

/** Paths `read_file` returned content for in this run and no later notice has flagged yet. */
export interface StaleReadsState {
  readonly read: readonly string[]
}

/**
 * `elideStaleReads`. `'stub'` (or `true`) adds the `stale-reads` wire stage:
 * a successful `read_file` result whose path a later successful `edit` /
 * `multi_edit` / `write_file` changed is sent as a short stub; the session
 * keeps the content. `'notice'` changes nothing already sent: when a
 * mutation succeeds on a path this run read, a `<stale-read>` notice naming
 * the path is appended to the mutation's own result (once per read). Both
 * use the same detection (`src/wire/stages/stale-reads.ts`).
 */
export const staleReads: BehaviorPolicy<StaleReadsState> = {
  name: 'stale-reads',
  enabled: behavior => staleReadMode(behavior) !== undefined,
  initialState: () => ({ read: [] }),
  wireStages: behavior => staleReadMode(behavior) === 'stub' ? [staleReadsStage] : [],
  result({ behavior, state, call, result, isError }) {
    if (staleReadMode(behavior) !== 'notice')
      return
    const path = callPath(call.input)
    if (path === undefined)
      return
    if (call.name === READ_TOOL) {
      if (isError || state.read.includes(path))
        return
      const kept = state.read.length < MAX_TRACKED_READS ? state.read : state.read.slice(state.read.length - MAX_TRACKED_READS + 1)
      return { state: { read: [...kept, path] } }
    }
    if (!MUTATING_TOOLS.has(call.name) || !state.read.includes(path) || !confirmsChange(result, isError))
      return
    return {
      state: { read: state.read.filter(entry => entry !== path) },
      decision: { type: 'replace', result: withNotice(result, staleReadNotice(path)) },
    }
  },
}
