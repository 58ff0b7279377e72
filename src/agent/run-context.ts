import type { AgentHookBus } from '../hooks/bus'
import type { ThinkingLevel } from '../providers/thinking'
import type { Provider } from '../providers/types'
import type { InjectedTurnReason, SessionTurn } from '../session/content'
import type { ToolRegistry } from '../tools/registry'
import type { AgentBehavior } from './behavior'
import type { AgentClock } from './clock'
import type { TurnUsage } from './stats'
import type { StopReason } from './stop-reason'

/** A user message the loop adds on its own (a nudge, a continuation). */
export interface InjectedMessage {
  text: string
  reason: InjectedTurnReason
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
  readonly provider: Provider
  readonly model: string
  readonly system: string
  readonly thinking: ThinkingLevel
  readonly modelOptions?: Record<string, unknown>
  readonly tools: ToolRegistry
  readonly clock: AgentClock
  /** Aborted by `agent.abort()`, the run's `signal`, or a policy. */
  readonly signal: AbortSignal
  readonly abort: (reason?: unknown) => void

  /** The conversation: turns given to the run plus the turns it adds. */
  readonly turns: SessionTurn[]
  /** Parent-loop turns this run has started. */
  turnCount: number
  /** Usage of each finished turn of this run, in order. */
  readonly usage: TurnUsage[]
  /** Run start on the run's clock (for journaled budgets such as `maxWallMs`). */
  readonly startedAt: number
  /** Run start in real time (for live measures such as `elapsed`). */
  readonly startedAtMs: number
  /** Real time of the first observable provider signal. */
  firstSignalAtMs?: number

  /** Messages to add as user turns before the next model call. */
  readonly pending: InjectedMessage[]
  /** Set by a policy to keep the loop going after a turn without tool calls. */
  continuation?: InjectedMessage
  /** Set by a policy to end the run at this turn boundary. */
  stopRequest?: StopReason
}
