import type { ToolDef } from '../types'
import type { ToolCatalogEntry } from './catalog'
import { TOOL_SEARCH_DEFAULTS } from '../../knobs/mcp-knobs'
import { clipEcho } from '../../text/clip-echo'
import { searchCatalog } from './catalog'

/** Name of the tool the model uses to find and load deferred tools. */
export const TOOL_SEARCH_NAME = 'tool_search'
/** Matches returned by `tool_search` when the call gives no limit. */
export const DEFAULT_TOOL_SEARCH_LIMIT: number = TOOL_SEARCH_DEFAULTS.limit
const MAX_TOOL_SEARCH_LIMIT = 100

/** Options of `createToolSearchTool`. */
export interface ToolSearchToolOptions {
  /** The searchable tools. */
  catalog: readonly ToolCatalogEntry[]
  /**
   * Canonical names disclosed so far, in discovery order. The tool adds every
   * tool it returns; the agent reads the set to let those tools be called
   * (and, in `'unlock'` mode, to append their schemas to the tools array).
   */
  unlocked: Set<string>
  /** Results when the model gives no `limit`. Default 20. */
  limit?: number
  /** How a found tool is called, which the result text explains. Default `'dispatch'`. */
  mode?: 'dispatch' | 'unlock'
  /** Wire name of the envelope tool in `'dispatch'` mode. Default `call_tool`. */
  callToolName?: string
  /** Tool name. Default `tool_search`. */
  name?: string
}

/** The unlock set behind each tool this module built, so an agent can adopt a host-made search tool. */
const unlockSets = new WeakMap<ToolDef, Set<string>>()

/** The unlock set a `createToolSearchTool` tool writes to, or `undefined` for any other tool. */
export function unlockSetOf(def: ToolDef): Set<string> | undefined {
  return unlockSets.get(def)
}

interface ToolSearchInput {
  query: string
  limit?: number
}

/**
 * The `tool_search` tool of lazy disclosure: finds catalog tools by keywords
 * (or `select:` exact names), returns their full schemas into the
 * conversation, and marks them disclosed.
 */
export function createToolSearchTool(options: ToolSearchToolOptions): ToolDef<ToolSearchInput> {
  const defaultLimit = options.limit ?? DEFAULT_TOOL_SEARCH_LIMIT
  const mode = options.mode ?? 'dispatch'
  const callTool = options.callToolName ?? 'call_tool'
  const def: ToolDef<ToolSearchInput> = {
    spec: {
      name: options.name ?? TOOL_SEARCH_NAME,
      description: `Load the input schemas of tools listed under "Searchable Tools" in the system prompt. `
        + `Pass keywords to search names, servers and descriptions, or "select:<name>,<name>" to load exact tools. ${
          mode === 'dispatch'
            ? `Call a loaded tool through ${callTool} with its name and arguments.`
            : 'A loaded tool can be called directly from the next turn on.'}`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Keywords, or select:<name>,<name> for exact tool names.' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_TOOL_SEARCH_LIMIT, description: `Most tools to return (default ${defaultLimit}).` },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
    // Reads the catalog and adds to a set synchronously: safe next to anything.
    isConcurrencySafe: true,
    execute(input) {
      const limit = Math.min(Math.max(1, Math.floor(input.limit ?? defaultLimit)), MAX_TOOL_SEARCH_LIMIT)
      const found = searchCatalog(options.catalog, input.query, limit)
      if (found.length === 0) {
        // Only the start of the query comes back: it is the model's own text, and a megabyte query must not return a megabyte.
        return `No searchable tool matched "${clipEcho(input.query)}". Try other keywords, or pick a name from the Searchable Tools list with select:<name>.`
      }
      for (const entry of found)
        options.unlocked.add(entry.name)
      const how = mode === 'dispatch'
        ? `Call ${found.length === 1 ? 'it' : 'them'} with ${callTool}: {"name": "<tool name>", "arguments": {…}}.`
        : `${found.length === 1 ? 'It is' : 'They are'} callable directly from your next turn.`
      const sections = found.map(entry => [
        `## ${entry.wireName}`,
        ...(entry.server ? [`Server: ${entry.server}`] : []),
        ...(entry.description ? [entry.description.trim()] : []),
        `Input schema: ${JSON.stringify(entry.inputSchema)}`,
      ].join('\n'))
      return [`Loaded ${found.length} tool${found.length === 1 ? '' : 's'}. ${how}`, ...sections].join('\n\n')
    },
  }
  unlockSets.set(def, options.unlocked)
  return def
}
