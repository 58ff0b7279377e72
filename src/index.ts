/**
 * `zidane`: create an agent, give it tools, run it.
 *
 *   import { createAgent, tool } from 'zidane'
 */

export type { AgentBehavior, CacheTtl, RetryConfig } from './agent/behavior'
export { DEFAULT_AGENT_CLOCK } from './agent/clock'
export type { AgentClock } from './agent/clock'
export { createAgent } from './agent/create-agent'
export type { Agent } from './agent/create-agent'
export type { AgentOptions, AgentRunOptions } from './agent/options'
export { flattenTurns, statsByModel } from './agent/stats'
export type { AgentStats, ChildRunStats, ModelUsage, TurnFinishReason, TurnUsage } from './agent/stats'
export type { StopReason } from './agent/stop-reason'
export type { AgentHookBus } from './hooks/bus'
export type * from './hooks/hook-map'
export { THINKING_LEVELS } from './providers/thinking'
export type { ThinkingLevel } from './providers/thinking'
export type { Provider, StreamOptions, TurnResult } from './providers/types'
export type * from './session/content'
export { toolOutputBudgetByteLength, toolOutputByteLength, toolResultToText } from './session/tool-output'
export { tool } from './tools/tool'
export type { ToolContext, ToolDef, ToolMap, ToolOutcome, ToolOutput } from './tools/types'
