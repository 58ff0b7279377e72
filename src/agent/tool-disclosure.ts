import type { SessionTurn } from '../core/content'
import type { AgentBehavior } from '../knobs/behavior'
import type { McpConnection } from '../mcp/types'
import type { FrozenPromptSections } from '../session/system-freeze'
import type { ToolDisclosure } from '../tools/registry'
import type { ToolCatalogEntry } from '../tools/tool-search'
import type { ToolDef, ToolMap } from '../tools/types'
import { mergeObjects } from '../core/merge-objects'
import { BEHAVIOR_DEFAULTS } from '../knobs/behavior'
import { TOOL_SEARCH_DEFAULTS } from '../knobs/mcp-knobs'
import { CODEMODE_TOOL_NAME, codemodeFor } from '../tools/codemode'
import { CALL_TOOL_NAME, createCallTool, createToolSearchTool, renderCatalogSection, TOOL_SEARCH_NAME, unlockSetOf } from '../tools/tool-search'

/** The name of the section that lists lazily disclosed tools. */
export const TOOL_CATALOG_SECTION = 'tool-catalog'

/** What lazy disclosure changes in one run: extra tools, the registry's disclosure, a prompt section. */
export interface DisclosurePlan {
  tools: ToolMap | undefined
  disclosure?: ToolDisclosure
  sections: FrozenPromptSections
  /** Load a held-back tool by canonical name (a no-op without lazy disclosure). */
  load: (name: string) => void
}

function loadNothing(): void {}

/**
 * Plan lazy disclosure for a run. MCP tools whose server resolves to
 * `'lazy'` (its own `disclosure`, else `behavior.toolDisclosure`) leave the
 * tools array; the system prompt lists them instead, and `tool_search` loads
 * their schemas. In `'dispatch'` mode (default) loaded tools are called
 * through the fixed `call_tool` envelope, so the tools array never changes;
 * in `'unlock'` mode their schemas are appended from the next turn.
 *
 * Tools the conversation already called (a resumed session) count as loaded,
 * so continuing a conversation never refuses a tool the model used before.
 */
export function planToolDisclosure(
  tools: ToolMap | undefined,
  aliases: Record<string, string> | undefined,
  mcp: McpConnection | undefined,
  behavior: AgentBehavior,
  history: readonly SessionTurn[],
  /** `run({ tools })` replaced the registry (codemode then adds nothing). */
  replaced = false,
): DisclosurePlan {
  const defs = Object.values(tools ?? {})
  const deferred = new Set(defs.filter(def => isLazy(def, mcp, behavior)).map(def => def.spec.name))
  if (deferred.size === 0)
    return { tools, sections: {}, load: loadNothing }
  // With codemode, scripts search the catalog themselves; in 'only' mode the model has no other way in.
  const codemode = codemodeFor(behavior, tools, replaced)
  const scriptsOnly = codemode?.mode === 'only'

  const wireOf = (canonical: string) => aliases?.[canonical] || canonical
  const settings = behavior.toolSearch ?? {}
  const mode = settings.mode ?? TOOL_SEARCH_DEFAULTS.mode
  const catalog: ToolCatalogEntry[] = defs.filter(def => deferred.has(def.spec.name)).map(def => ({
    name: def.spec.name,
    wireName: wireOf(def.spec.name),
    description: def.spec.description,
    inputSchema: def.spec.inputSchema,
    server: def.mcp?.server,
  }))

  // A search tool the host built with `createToolSearchTool` brings its own unlock set; a bare
  // host tool named `tool_search` shadows ours but cannot disclose anything.
  const hostSearch = defs.find(def => unlockSetOf(def) !== undefined)
  const shadowing = defs.find(def => def.spec.name === TOOL_SEARCH_NAME)
  const unlocked = hostSearch ? unlockSetOf(hostSearch)! : new Set<string>()
  const injected = !hostSearch && !shadowing && settings.tool !== false && !scriptsOnly
    ? createToolSearchTool({ catalog, unlocked, limit: settings.limit, mode, callToolName: wireOf(CALL_TOOL_NAME) })
    : undefined
  const searchTool: ToolDef | undefined = hostSearch ?? shadowing ?? injected
  const added: ToolMap = injected ? { [TOOL_SEARCH_NAME]: injected } : {}
  if (mode === 'dispatch' && (hostSearch || injected) && !scriptsOnly && !defs.some(def => def.spec.name === CALL_TOOL_NAME))
    added[CALL_TOOL_NAME] = createCallTool()

  for (const name of calledTools(history, aliases)) {
    if (deferred.has(name))
      unlocked.add(name)
  }

  const searchWire = searchTool && !scriptsOnly ? wireOf(searchTool.spec.name) : undefined
  const callWire = mode === 'dispatch' && !scriptsOnly ? wireOf(CALL_TOOL_NAME) : undefined
  const section = renderCatalogSection(catalog, {
    detail: codemode?.catalog ?? settings.catalog ?? TOOL_SEARCH_DEFAULTS.catalog,
    searchTool: searchWire,
    callTool: callWire,
    ...(codemode ? { scriptTool: CODEMODE_TOOL_NAME } : {}),
  })
  return {
    tools: mergeObjects(tools, added),
    disclosure: {
      deferred,
      unlocked,
      appendUnlocked: mode === 'unlock',
      refusal: wire => searchWire
        ? `Error: "${wire}" is a searchable tool whose schema is not loaded yet. Load it with ${searchWire} first${callWire ? `, then call it through ${callWire}` : ' (it becomes callable on the next turn)'}.`
        : `Error: "${wire}" is a searchable tool that has not been loaded in this run.`,
    },
    sections: { [TOOL_CATALOG_SECTION]: section },
    load: (name) => {
      if (deferred.has(name))
        unlocked.add(name)
    },
  }
}

function isLazy(def: ToolDef, mcp: McpConnection | undefined, behavior: AgentBehavior): boolean {
  if (!def.mcp)
    return false
  const server = mcp?.servers.find(info => info.name === def.mcp!.server)
  return (server?.disclosure ?? behavior.toolDisclosure ?? BEHAVIOR_DEFAULTS.toolDisclosure) === 'lazy'
}

/** Canonical names of every tool the history called, directly or through an envelope. */
function calledTools(history: readonly SessionTurn[], aliases: Record<string, string> | undefined): Set<string> {
  const canonicalOf = new Map(Object.entries(aliases ?? {}).map(([canonical, wire]) => [wire, canonical]))
  const names = new Set<string>()
  for (const turn of history) {
    if (turn.role !== 'assistant')
      continue
    for (const block of turn.content) {
      if (block.type !== 'tool_call')
        continue
      const name = canonicalOf.get(block.name) ?? block.name
      names.add(name)
      const inner = block.input?.name
      if (name === CALL_TOOL_NAME && typeof inner === 'string')
        names.add(canonicalOf.get(inner) ?? inner)
    }
  }
  return names
}
