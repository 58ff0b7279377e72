/** MCP knobs: connecting, naming, instructions, and lazy disclosure through `tool_search`. */

import { defineFields, defineKnobs, isBoolean, isLimit, oneOf, shape, wholeAtLeast } from './define'

/** Settings of the `tool_search` tool that lazy disclosure injects. No effect while every tool is eager. */
export interface ToolSearchBehavior {
  /** `false`: inject nothing (the host ships its own discovery tool); the catalog then drops its pointer to `tool_search`. */
  tool?: false
  /** Results per search when the model gives no `limit`. Default 20. */
  limit?: number
  /**
   * How a found tool becomes callable. `'dispatch'` (default): through a fixed
   * `call_tool { name, arguments }` tool, so the tools array never changes and
   * the prompt cache survives. `'unlock'`: its schema joins the tools array
   * from the next turn, appended in discovery order (each wave rewrites the cache).
   */
  mode?: 'dispatch' | 'unlock'
  /** What the system-prompt catalog lists per tool: `'full'` (default) name and description, `'names'` names only. */
  catalog?: 'full' | 'names'
}

/** How MCP servers connect and how their tools reach the model. */
export interface McpKnobs {
  /** Bound on connecting the agent's MCP servers. Default 120000; `0` disables; a lower `maxWallMs` wins. */
  mcpConnectTimeoutMs?: number
  /** Separator of MCP tool names on the wire: `'_'` (`mcp_server_tool`, default) or `'__'`. */
  mcpToolNameSeparator?: '_' | '__'
  /** Add the servers' own instructions to the system prompt. Default true. */
  surfaceMcpInstructions?: boolean
  /**
   * How MCP tools reach the model. `'eager'` (default): every schema in the
   * tools array. `'lazy'`: a name + description catalog in the system prompt,
   * schemas loaded on demand with `tool_search`. Native tools stay eager; a
   * server's own `disclosure` wins over this.
   */
  toolDisclosure?: 'eager' | 'lazy'
  /** The `tool_search` tool injected for lazy disclosure (see `ToolSearchBehavior`). */
  toolSearch?: ToolSearchBehavior
}

/** What unset fields of `toolSearch` behave as (`tool` unset means injected). */
export const TOOL_SEARCH_DEFAULTS = Object.freeze({
  limit: 20,
  mode: 'dispatch',
  catalog: 'full',
} satisfies ToolSearchBehavior)

const TOOL_SEARCH_FIELDS = defineFields<ToolSearchBehavior>('toolSearch', TOOL_SEARCH_DEFAULTS, {
  tool: { doc: '`false`: no `tool_search` / `call_tool`; the catalog stops pointing at a search tool.', defaultLabel: 'injected', check: oneOf(false) },
  limit: { doc: 'Results per `tool_search` call when the model passes no `limit`.', check: wholeAtLeast(1) },
  mode: { doc: 'How loaded tools are called: the fixed `call_tool` envelope, or `\'unlock\'` (schemas appended).', check: oneOf('dispatch', 'unlock') },
  catalog: { doc: '`\'names\'` lists only tool names in the catalog section.', check: oneOf('full', 'names') },
})

/** Defaults of the MCP slice. */
export const MCP_DEFAULTS = Object.freeze({
  mcpConnectTimeoutMs: 120_000,
  mcpToolNameSeparator: '_',
  surfaceMcpInstructions: true,
  toolDisclosure: 'eager',
} satisfies McpKnobs)

/** The MCP slice. */
export const MCP_KNOBS = defineKnobs<McpKnobs, typeof MCP_DEFAULTS>('mcp', MCP_DEFAULTS, {
  mcpConnectTimeoutMs: { doc: 'Bound on connecting the agent\'s MCP servers; a lower `maxWallMs` wins.', check: isLimit },
  mcpToolNameSeparator: { doc: 'Separator of MCP wire names: `mcp_<server>_<tool>` or `mcp__<server>__<tool>`.', check: oneOf('_', '__') },
  surfaceMcpInstructions: { doc: 'Servers\' `initialize` instructions join the system prompt.', check: isBoolean },
  toolDisclosure: { doc: '`\'lazy\'`: MCP tools leave the tools array for a catalog and `tool_search`.', check: oneOf('eager', 'lazy') },
  toolSearch: { doc: 'The `tool_search` tool injected for lazy disclosure.', defaultLabel: 'see fields', check: shape(TOOL_SEARCH_FIELDS), fields: TOOL_SEARCH_FIELDS },
})
