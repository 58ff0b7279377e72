/**
 * `zidane/agent`: the agent and its types, without the tools, providers or helpers of the root entry.
 *
 * @module zidane/agent
 */

export type { AgentClock } from '../core/clock'
export { DEFAULT_AGENT_CLOCK } from '../core/clock'
export type { AgentStats, ChildRunStats, ModelUsage, OutputError, TurnFinishReason, TurnUsage } from '../core/stats'
export type { StopReason, StopReasons } from '../core/stop-reason'
export type { AgentHookBus, AgentHookRegistration } from '../hooks/bus'
export type * from '../hooks/hook-map'
export type { AgentBehavior, CacheTtl, RetryConfig } from '../knobs/behavior'
export { continueWith, definePolicy, nudge } from '../policies/policy'
export type * from '../policies/policy'
export { createAgent } from './create-agent'
export type { Agent, AgentResumeOptions, RunOptionsWithSchema } from './create-agent'
export type { AgentOptions, AgentProfile, AgentRunOptions } from './options'
export { DEFAULT_STREAM_HIGH_WATER_MARK } from './stream'
export type { AgentStream, AgentStreamOptions } from './stream'
export type * from './stream-events'
