import type { PendingApproval } from './approval'
import type { StopReason } from './stop-reason'
import { pushAll } from '../core/push-all'

/** Why the provider ended one turn, normalized across APIs. */
export type TurnFinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'pause' | 'error' | 'other'

/** Tokens, cost and timing of one turn. */
export interface TurnUsage {
  input: number
  output: number
  cacheRead?: number
  cacheCreation?: number
  thinking?: number
  thinkingDropped?: number
  cost?: number
  /** Measured energy of the request in joules, when the server reports it (Neuralwatt's `energy_joules`, read by the Chat Completions provider); absent otherwise. */
  energyJoules?: number
  modelId?: string
  provider?: string
  finishReason?: TurnFinishReason
  timeToFirstTokenMs?: number
  streamDurationMs?: number
}

/**
 * Usage of one side-band model call a policy made during a run (an
 * auto-compaction or context-recovery summary): billed like a turn, so it is
 * in the run's totals, cost and budgets, but it is not a turn of the loop.
 */
export interface SideCallUsage extends TurnUsage {
  /** What the call was for, as the policy named it (`'compact'` for a summary). */
  purpose: string
  /** The parent-loop turn the call ran in or after. */
  turn: number
}

/**
 * The type of the value a `behavior.schema` yields on `stats.output`: a zod
 * schema's output type, `unknown` for a JSON Schema object or no schema.
 */
export type SchemaOutput<Schema> = Schema extends { readonly _zod: { readonly output: infer Output } } ? Output : unknown

/**
 * A spawned subagent's run, as the parent records it. `Output` is the type
 * of `output` (see `AgentStats`).
 */
export interface ChildRunStats<Output = unknown> {
  id: string
  task: string
  stats: AgentStats<Output>
  callId?: string
  depth?: number
  /**
   * The child's validated output when it ran with `behavior.schema` (its
   * `stats.output`, surfaced here so the parent need not dig into `stats`).
   */
  output?: Output
  status?: 'completed' | 'error' | 'aborted' | 'timeout'
}

/** Why a run with `behavior.schema` has no `output`. */
export interface OutputError {
  /** One line per problem, each naming the path that failed (`(output)` for the value itself). */
  problems: string[]
  /** The problems as one readable message. */
  message: string
  /** Invalid answers the model gave, the repair turns included. */
  attempts: number
}

/**
 * What `agent.run()` returns. `Output` is the type of `output`: the zod
 * schema's output type when the run's `behavior.schema` is a zod schema the
 * compiler can see (`createAgent` or `run` given it inline or as a typed
 * constant), `unknown` otherwise.
 */
export interface AgentStats<Output = unknown> {
  /** Parent-loop turns only; children keep their own count. */
  turns: number
  totalIn: number
  totalOut: number
  totalCacheRead: number
  totalCacheCreation: number
  cost?: number
  elapsed: number
  timeTillFirstTokenMs?: number
  turnUsage?: TurnUsage[]
  /**
   * Side-band model calls of the parent loop (compaction summaries), in
   * order. Not turns, so not in `turnUsage` or `turns`; their tokens and
   * cost are in the totals above. Absent when the run made none.
   */
  sideCalls?: SideCallUsage[]
  children?: ChildRunStats[]
  /**
   * The run's final answer as a value that passed `behavior.schema` (the
   * schema's parsed value for a zod schema). Set only with a schema and only
   * when validation passed; otherwise `stopReason` says why it is absent
   * (`'output-invalid'` comes with `outputError`).
   */
  output?: Output
  /** With `behavior.schema`, when no valid output was produced: what failed (`stopReason: 'output-invalid'`). */
  outputError?: OutputError
  paused?: boolean
  /**
   * The run stopped to wait for something outside it (`stopReason:
   * 'suspended'`): `agent.suspend()`, or calls waiting for approval
   * (`pendingApprovals`). Its state is saved with the run record;
   * `agent.resume()` continues it, from another process too.
   */
  suspended?: boolean
  /** The reason given to `agent.suspend(reason)`, with `suspended`. */
  suspendReason?: string
  /** On a run suspended for approval: the calls still waiting for a decision, in call order (`agent.approve()` / `agent.deny()`). */
  pendingApprovals?: PendingApproval[]
  /** Text of the last assistant turn of the run. */
  text: string
  /** Why the loop ended. */
  stopReason: StopReason
  /**
   * Why an aborted run was aborted, when the abort said why: a policy's
   * abort decision (the repeat guard's, say) or `agent.abort(reason)` (a
   * string as given, an error's message). Absent for a bare cancel.
   */
  abortReason?: string
}

/** Usage summed per model by `statsByModel`. */
export interface ModelUsage {
  input: number
  output: number
  cacheRead: number
  cacheCreation: number
  cost: number
  turns: number
}

/** Every turn of the stats tree, depth first: the parent's turns, then each child subtree in completion order. */
export function flattenTurns(stats: AgentStats): TurnUsage[] {
  const out: TurnUsage[] = []
  const visit = (node: AgentStats): void => {
    if (node.turnUsage)
      pushAll(out, node.turnUsage)
    for (const child of node.children ?? [])
      visit(child.stats)
  }
  visit(stats)
  return out
}

const UNKNOWN_MODEL = '(unknown)'

/**
 * Sum usage per `modelId` across the whole stats tree; turns without a model
 * id land under `'(unknown)'`. Side calls (`AgentStats.sideCalls`) add their
 * tokens and cost, so the sums match the totals, but not to `turns`.
 */
export function statsByModel(stats: AgentStats): Map<string, ModelUsage> {
  const byModel = new Map<string, ModelUsage>()
  const add = (usage: TurnUsage, turns: number): void => {
    const key = usage.modelId ?? UNKNOWN_MODEL
    let entry = byModel.get(key)
    if (!entry) {
      entry = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0, cost: 0, turns: 0 }
      byModel.set(key, entry)
    }
    entry.input += usage.input
    entry.output += usage.output
    entry.cacheRead += usage.cacheRead ?? 0
    entry.cacheCreation += usage.cacheCreation ?? 0
    entry.cost += usage.cost ?? 0
    entry.turns += turns
  }
  for (const turn of flattenTurns(stats))
    add(turn, 1)
  const visit = (node: AgentStats): void => {
    for (const call of node.sideCalls ?? [])
      add(call, 0)
    for (const child of node.children ?? [])
      visit(child.stats)
  }
  visit(stats)
  return byModel
}
