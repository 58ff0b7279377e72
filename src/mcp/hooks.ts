import type { ToolResultMetadata } from '../core/content'
import type { HookHandler, TransformHookHandler } from '../core/hook-context'
import type { ToolOutput } from '../core/tool-io'
import type { McpElicitationContext } from './elicitation-form'
import type { McpAuthRequiredContext, McpCloseContext, McpToolsFilterContext } from './types'

/**
 * The MCP tool call a `mcp:tool:*` hook fires for. `server` and `tool` are
 * the configured server name and the server's own tool name; `name` is the
 * canonical `mcp__<server>__<tool>`, `displayName` what the model sees.
 */
export interface McpToolHookContext {
  runId?: string
  depth?: number
  parentRunId?: string
  parentCallId?: string
  turnId: string
  callId: string
  server: string
  tool: string
  name: string
  displayName: string
  input: Record<string, unknown>
  /** Set on a nested call (`ToolContext.callTool`): the id of the calling tool's call (see `ToolHookContext.parentToolCallId`). */
  parentToolCallId?: string
  /** On a nested call: the caller's script line that made it, when the caller tracks lines. */
  scriptLine?: number
}

/** `mcp:tool:transform`: assign `result` to change what the model reads (runs after `tool:transform`). */
export interface McpToolTransformContext extends McpToolHookContext {
  result: ToolOutput
  isError: boolean
  /** Wire size of `result` as the hook received it (`toolOutputByteLength`). */
  outputBytes: number
  /** Model-invisible data about the result, shared with `tool:transform` (see `ToolTransformContext.metadata`). */
  metadata: ToolResultMetadata
}

/** `mcp:tool:after`: the final result of one MCP tool call. */
export interface McpToolAfterContext extends McpToolHookContext {
  result: ToolOutput
  isError: boolean
  outputBytes: number
  durationMs: number
  /** What the transform hooks attached to the result (absent when they attached nothing). */
  metadata?: ToolResultMetadata
}

/** The events of MCP servers and the calls of their tools. */
export interface McpHooks {
  'mcp:tools:filter': TransformHookHandler<McpToolsFilterContext>
  'mcp:tool:transform': TransformHookHandler<McpToolTransformContext>
  'mcp:tool:after': HookHandler<McpToolAfterContext>
  'mcp:close': HookHandler<McpCloseContext>
  'mcp:auth:required': HookHandler<McpAuthRequiredContext>
  'mcp:elicitation': HookHandler<McpElicitationContext>
}

/** The MCP events by name; `satisfies` keeps it in step with `McpHooks`. */
export const MCP_HOOK_NAMES = {
  'mcp:tools:filter': true,
  'mcp:tool:transform': true,
  'mcp:tool:after': true,
  'mcp:close': true,
  'mcp:auth:required': true,
  'mcp:elicitation': true,
} as const satisfies Record<keyof McpHooks, true>
