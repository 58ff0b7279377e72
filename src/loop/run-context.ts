import type { ExecutionContext, TaskStallInfo } from '../contexts/types'
import type { AgentClock } from '../core/clock'
import type { InjectedTurnReason, PromptPart, SessionContentBlock, SessionTurn } from '../core/content'
import type { ChildRunStats, TurnUsage } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { AgentHookBus } from '../hooks/bus'
import type { AgentBehavior } from '../knobs/behavior'
import type { ModelCatalogLayers } from '../providers/catalog/types'
import type { ModelTarget } from '../providers/model-targets'
import type { ThinkingLevel } from '../providers/thinking'
import type { Provider } from '../providers/types'
import type { Session } from '../session/session'
import type { ToolStateController } from '../tool-state/types'
import type { ToolRegistry } from '../tools/registry'
import type { SubagentHost } from '../tools/types'
import type { WireMemo } from '../wire/pipeline'
import type { WireStage } from '../wire/stage'
import type { WallDeadline } from './wall-deadline'

/** A user turn waiting to be added before the next model call. */
export interface PendingTurn {
  content: SessionContentBlock[]
  /** Set when the loop wrote it (a nudge, a continuation), not a person. */
  injected?: InjectedTurnReason
  /** For steered and follow-up messages: where it came from and the caller's id (`steer:inject`). */
  queued?: { kind: 'steer' | 'follow-up', id?: string, prompt: string | PromptPart[] }
}

/**
 * Everything one `agent.run()` call works with. The loop owns it; policies
 * see it through `PolicyContext`, and tools through `ToolContext`.
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
  /** The provider and model serving the run now; a fallback moves both (see `targets`). */
  provider: Provider
  model: string
  /** Every target of the run, in fallback order, and the index of the current one. */
  readonly targets: readonly ModelTarget[]
  targetIndex: number
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
  /** Parent-loop turns this run has started. */
  turnCount: number
  /** The seam tools use to run subagents under this run. */
  readonly subagents: SubagentHost
  /** Stats of the subagents this run spawned, in completion order. */
  readonly children: ChildRunStats[]
  /** Usage of each finished turn of this run, in order. */
  readonly usage: TurnUsage[]
  /** Run start on the run's clock (for journaled budgets such as `maxWallMs`). */
  readonly startedAt: number
  /** Run start in real time (for live measures such as `elapsed`). */
  readonly startedAtMs: number
  /** The `maxWallMs` deadline, which aborts the run when it passes (absent without a wall-clock budget). */
  readonly wall?: WallDeadline
  /** Real time of the first observable provider signal. */
  firstSignalAtMs?: number

  /** User turns to add before the next model call (added only if the loop goes on). */
  readonly pending: PendingTurn[]
  /** Set by a policy to keep the loop going after a turn without tool calls. */
  keepGoing: boolean
  /** Set by a policy to end the run at this turn boundary. */
  stopRequest?: StopReason
  /** Wire stages the run's policies contribute, in policy order (the pipeline places them). */
  readonly wireStages: readonly WireStage[]
  /** What the wire pipeline remembers from one request to the next (created by its first request; a cache, never saved). */
  wireMemo?: WireMemo
}
