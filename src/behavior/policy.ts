import type { ExecutionContext } from '../contexts/types'
import type { AgentClock } from '../core/clock'
import type { InjectedTurnReason } from '../core/content'
import type { TurnUsage } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { AgentHookBus } from '../hooks/bus'
import type { AgentBehavior } from '../knobs/behavior'
import type { Session } from '../session/session'

/** What a policy may read about the run it is attached to. */
export interface PolicyRunView {
  readonly runId: string
  readonly clock: AgentClock
  /** Turns started so far in this run. */
  readonly turnCount: number
  /** Usage of each finished turn. */
  readonly usage: readonly TurnUsage[]
  /** Run start on the run's clock. */
  readonly startedAt: number
  /** The session the run records into, when the agent has one. */
  readonly session?: Session
  /** Where the run's tools run commands and touch files. */
  readonly execution: ExecutionContext
}

/** The handle a policy gets for one run. */
export interface PolicyContext {
  readonly hooks: AgentHookBus
  readonly behavior: Readonly<AgentBehavior>
  readonly run: PolicyRunView
  /** Add a user message before the next model call, if there is one (a nudge). */
  inject: (text: string, reason: InjectedTurnReason) => void
  /** Keep the loop going with this user message even though the model stopped. */
  continueWith: (text: string, reason: InjectedTurnReason) => void
  /** End the run at this turn boundary with this reason. */
  stop: (reason: StopReason) => void
  /** Abort the run, as `agent.abort()` would. */
  abort: (reason?: unknown) => void
}

/**
 * A behavior policy: a small module that attaches hook handlers for one run
 * and returns a function that detaches them. The loop knows none by name.
 */
export interface BehaviorPolicy {
  readonly name: string
  /** Register the policy's handlers for one run; the returned function removes them when the run ends. */
  attach: (ctx: PolicyContext) => (() => void) | void
}
