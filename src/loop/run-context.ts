import type { ExecutionContext, TaskStallInfo } from '../contexts/types'
import type { AgentClock } from '../core/clock'
import type { ResolveContentRef, SessionTurn } from '../core/content'
import type { RunEffects } from '../core/effects'
import type { AccessorDescriptor, AccessorMap } from '../core/fast-accessors'
import type { RunState } from '../core/run-state'
import type { ChildRunStats, SideCallUsage, TurnUsage } from '../core/stats'
import type { AgentHookBus } from '../hooks/bus'
import type { AgentBehavior } from '../knobs/behavior'
import type { InjectedMessage, PolicyRunView, StopResult } from '../policies/policy'
import type { ModelCatalogLayers } from '../providers/catalog/types'
import type { ModelTarget } from '../providers/model-targets'
import type { ThinkingLevel } from '../providers/thinking'
import type { Provider, StreamOptions } from '../providers/types'
import type { Session } from '../session/session'
import type { SessionRun } from '../session/types'
import type { ToolStateController } from '../tool-state/types'
import type { ToolRegistry } from '../tools/registry'
import type { NeedsApprovalMap, SubagentHost } from '../tools/types'
import type { WireMemo } from '../wire/pipeline'
import type { SentWireStage, WireStage } from '../wire/stage'
import type { ApprovalDesk } from './approval-desk'
import type { ContentRefCache } from './content-refs'
import type { PolicyPhases } from './policy-runner'
import type { WallBound, WallDeadline } from './wall-deadline'
import { withAccessors } from '../core/fast-accessors'

/**
 * The run record with its state, saved at each turn boundary. The record
 * rides in the same write as the boundary's turns (`record`); the loop
 * writes it again after the turn's last phase only when that phase changed
 * the state (`changed`, then `save`), so a turn costs one write, not two.
 */
export interface RunCheckpoint {
  /** The run record with the state as it is now; remembered as the last one saved. */
  record: () => SessionRun
  /** Whether the state moved since the last `record()`. */
  changed: () => boolean
  /** Save `record()` on its own. */
  save: () => Promise<void>
}

/** A user message waiting to join the next user turn (all of a boundary's messages join as one turn). */
export type PendingTurn = InjectedMessage

/**
 * How much of the run's state an earlier leg did, when this `run()` call
 * continues a run (after a pause or a crash, or with `resumeRunId`): the
 * lengths the restored state had. The stats of a call report its own leg
 * (what it did after these), so summing the records of a run's legs never
 * counts a turn twice; policies read the whole run.
 */
export interface RunLegStart {
  readonly turns: number
  readonly usage: number
  readonly sideCalls: number
  readonly children: number
}

/**
 * Everything one `agent.run()` call works with. The loop owns it; policies
 * see it through `PolicyRunView`, and tools through `ToolContext`.
 *
 * What the run decides from is data, in `state` (`RunState`: saved with the
 * run record and restored by a continuation). The data fields below
 * (`turnCount`, `targetIndex`, `provider`, `model`, `pending`, `usage`,
 * `sideCalls`, `children`, `stopResult`) are accessors over it, kept so the
 * loop and the policies read one flat object; the rest are live handles and
 * caches, rebuilt by every `run()` call. See docs/architecture/run-state.md.
 */
export interface RunContext {
  readonly runId: string
  readonly depth: number
  readonly parentRunId?: string
  readonly parentCallId?: string

  readonly hooks: AgentHookBus
  readonly behavior: Readonly<AgentBehavior>
  /** The run's and the agent's model catalogs, kept apart so each layer is consulted in turn. */
  readonly catalogs: ModelCatalogLayers
  /** The provider and model serving the run now (`targets[targetIndex]`); a fallback moves both. */
  readonly provider: Provider
  readonly model: string
  /** Every target of the run, in fallback order, and the index of the current one (`state.target`: setting it moves the run). */
  readonly targets: readonly ModelTarget[]
  targetIndex: number
  /** The serving model's context window: the `contextWindow` knob, then `autoCompact.contextWindow`, then the current target's (see `servingContextWindow`). */
  readonly contextWindow?: number
  readonly system: string
  readonly thinking: ThinkingLevel
  readonly modelOptions?: Record<string, unknown>
  readonly tools: ToolRegistry
  /** Where tools run commands and touch files. */
  readonly execution: ExecutionContext
  /** Reports a stalled background task: fires `background:stall` and tells the model at its next turn. */
  readonly onBackgroundStall: (info: TaskStallInfo) => void
  /** The agent's tool state; each call gets its own staging view. */
  readonly toolState: ToolStateController
  readonly clock: AgentClock
  /** Time, ids, randomness, waits, model calls, tool executions and policy I/O of the run (see `RunEffects`). */
  readonly effects: RunEffects
  /** Aborted by `agent.abort()`, the run's `signal`, or a policy. */
  readonly signal: AbortSignal
  readonly abort: (reason?: unknown) => void

  /** The conversation: turns given to the run plus the turns it adds. */
  readonly turns: SessionTurn[]
  /** The session the run records into, when the agent has one. */
  readonly session?: Session
  /** `turns[persistedCount:]` are not in the session's store yet. */
  persistedCount: number
  /** Stops the run at the next turn boundary (`stopReason: 'paused'`). */
  readonly pauseSignal?: AbortSignal
  /** Stops the run at the next turn boundary (`stopReason: 'suspended'`): `agent.suspend()`. */
  readonly suspendSignal?: AbortSignal
  /**
   * The run's durable runtime mode, when it has one: `'replay'` schedules tool
   * batches in call order (`./journaled-scheduler`) and writes turns a replay
   * finds already stored only once; both keep the model's output in the
   * session before its tools run.
   */
  readonly durableMode?: 'replay' | 'checkpoint'
  /** Turns already in the store that this run (a replay) writes again: their ids, so they are stored once. */
  readonly storedTurnIds?: ReadonlySet<string>
  /** Parent-loop turns this run has started, every leg included (`state.turnCount`). */
  turnCount: number
  /** The seam tools use to run subagents under this run. */
  readonly subagents: SubagentHost
  /** Stats of the subagents this run spawned, in completion order (`state.children`). */
  readonly children: ChildRunStats[]
  /** Usage of each finished turn of this run, in order (`state.usage`). */
  readonly usage: TurnUsage[]
  /** Usage of each side-band call (`complete`) of this run, in order (`state.sideCalls`). */
  readonly sideCalls: SideCallUsage[]
  /** Where this call's leg starts in the restored state (all zero for a run that starts fresh). */
  readonly legStart: RunLegStart
  /** Run start on the run's clock (for journaled budgets such as `maxWallMs`). */
  readonly startedAt: number
  /** Run start on the effects' time (for live measures such as `elapsed`); the wall-clock bounds keep their own real time. */
  readonly startedAtMs: number
  /** The `maxWallMs` cap as the loop's waits see it (absent without one); see `./wall-deadline`. */
  readonly wall?: WallDeadline
  /** The `hardWallMs` deadline, which aborts the run when it passes (absent without one). */
  readonly hardWall?: WallBound
  /** The effects' time of the first observable provider signal. */
  firstSignalAtMs?: number

  /** User messages to add, as one turn, before the next model call (added only if the loop goes on; `state.pending`). */
  readonly pending: PendingTurn[]
  /** The run's enabled policies per phase, in order (set once at run start). */
  readonly policyPhases: PolicyPhases
  /** The run as data: counters, serving target, queued messages, usage, policy states (see `RunState`). */
  readonly state: RunState
  /** Saves the run state with the run record at turn boundaries (absent without a session, or with `persistTurns: false`). */
  readonly checkpoint?: RunCheckpoint
  /** Wire stages the run's policies contribute, in policy order (the pipeline places them). */
  readonly wireStages: readonly WireStage[]
  /** Sent-slot stages of the run's policies, in policy order (after `context:transform`). */
  readonly sentStages: readonly SentWireStage[]
  /** What the wire pipeline remembers from one request to the next (created by its first request; a cache, never saved). */
  wireMemo?: WireMemo
  /** The last model request the loop sent (for `complete`, which reuses its cached prefix). */
  lastRequest?: Omit<StreamOptions, 'signal'>
  /** How many turns the conversation had when `lastRequest` was built. */
  lastRequestTurns?: number
  /** A side-band model call for policies (see `PolicyRunView.complete`). */
  readonly complete: PolicyRunView['complete']
  /** Fire a host event from a policy (see `PolicyRunView.emit`). */
  readonly emit: PolicyRunView['emit']
  /** The host's resolver for `ref` blocks (`AgentOptions.resolveContentRef`), called when a request is built. */
  readonly resolveContentRef?: ResolveContentRef
  /** What the run resolved so far (created by the first request that needs it). */
  contentRefs?: ContentRefCache
  /** The stats fields the stop that ended the run set (a policy's `StopDecision.result`; `state.stopResult`). */
  stopResult?: StopResult
  /** The host's `needsApproval` entries (`AgentOptions.needsApproval`), which win over the tools' own. */
  readonly needsApproval?: NeedsApprovalMap
  /** The approval requests this run waits on now (`agent.approve()` / `agent.deny()` reach them here). */
  readonly approvals: ApprovalDesk
}

/**
 * The context window of the model serving the run now, in this order: the
 * host's `contextWindow` knob, `autoCompact.contextWindow`, then what the
 * current target resolved (its list entry, the host's catalog layers, the
 * provider's `meta`, the bundled data). The one place it is read.
 */
export function servingContextWindow(run: {
  readonly behavior: Readonly<AgentBehavior>
  readonly targets: readonly Pick<ModelTarget, 'contextWindow'>[]
  readonly targetIndex: number
}): number | undefined {
  const knob = run.behavior.contextWindow
  if (knob !== undefined && knob > 0)
    return knob
  const auto = run.behavior.autoCompact
  if (typeof auto === 'object' && auto.contextWindow !== undefined && auto.contextWindow > 0)
    return auto.contextWindow
  return run.targets[run.targetIndex]?.contextWindow
}

/** The members of `RunContext` that are views over its `state` (or computed from it), not fields of their own. */
export type RunStateViewKey = 'provider' | 'model' | 'targetIndex' | 'turnCount' | 'pending' | 'usage' | 'sideCalls' | 'children' | 'stopResult' | 'contextWindow'

/**
 * Those views, made once and defined on each run object after it is built
 * (`withStateViews`): as getters in the run's literal they would make it a
 * dictionary-mode object, and the loop reads the run's fields hundreds of
 * times a turn (see `../core/fast-accessors`).
 */
const STATE_VIEWS: AccessorMap<RunContext, RunStateViewKey> = {
  provider: accessor(function () {
    return this.targets[this.state.target.index].provider
  }),
  model: accessor(function () {
    return this.targets[this.state.target.index].model
  }),
  targetIndex: accessor(function () {
    return this.state.target.index
  }, function (index) {
    const target = this.targets[index]
    this.state.target = { index, provider: target.provider.name, model: target.model }
  }),
  turnCount: accessor(function () {
    return this.state.turnCount
  }, function (count) {
    this.state.turnCount = count
  }),
  pending: accessor(function () {
    return this.state.pending
  }),
  usage: accessor(function () {
    return this.state.usage
  }),
  sideCalls: accessor(function () {
    return this.state.sideCalls
  }),
  children: accessor(function () {
    return this.state.children
  }),
  stopResult: accessor(function () {
    return this.state.stopResult
  }, function (result) {
    this.state.stopResult = result
  }),
  contextWindow: accessor(function () {
    return servingContextWindow(this)
  }),
}

function accessor<V>(get: (this: RunContext) => V, set?: (this: RunContext, value: V) => void): AccessorDescriptor<RunContext, V> {
  return set ? { get, set, enumerable: true, configurable: true } : { get, enumerable: true, configurable: true }
}

/** A run object built without its state views (`RunStateViewKey`), given them. */
export function withStateViews(fields: Omit<RunContext, RunStateViewKey>): RunContext {
  return withAccessors(fields, STATE_VIEWS)
}
