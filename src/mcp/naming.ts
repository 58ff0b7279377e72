import { createHash } from 'node:crypto'
import { truncateText } from '../text/truncate'

/** Prefix every canonical MCP tool name starts with. */
export const MCP_TOOL_PREFIX = 'mcp__'

const UNSAFE_CHARS = /[^\w-]/g

/** Longest wire name we emit: the strictest common provider limit (OpenAI's 64). */
export const MAX_WIRE_NAME_LENGTH = 64

/**
 * Make a server or tool name safe for provider tool-name rules
 * (`[A-Za-z0-9_-]`): anything else becomes `_`. An empty result becomes `_`
 * so the name keeps its three parts.
 */
export function sanitizeMcpName(name: string): string {
  const cleaned = name.replace(UNSAFE_CHARS, '_')
  return cleaned.length > 0 ? cleaned : '_'
}

/** The canonical name sessions, hooks and budgets see: `mcp__<server>__<tool>`. */
export function canonicalMcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${sanitizeMcpName(server)}__${sanitizeMcpName(tool)}`
}

/**
 * The name shown to the model: `mcp_<server>_<tool>` with separator `'_'`,
 * the canonical form with `'__'`. Names over the provider limit are cut and
 * suffixed with a short hash of the full name, so two long names that share a
 * prefix still differ.
 */
export function wireMcpToolName(server: string, tool: string, separator: '_' | '__' = '_'): string {
  const full = `mcp${separator}${sanitizeMcpName(server)}${separator}${sanitizeMcpName(tool)}`
  return fitWireName(full)
}

export function fitWireName(name: string): string {
  if (name.length <= MAX_WIRE_NAME_LENGTH)
    return name
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8)
  return `${truncateText(name, MAX_WIRE_NAME_LENGTH - hash.length - 1)}_${hash}`
}

/** True for names in the canonical MCP namespace. */
export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX)
}

/**
 * Hands out names unique within one set: a name already taken gets `_2`,
 * `_3`, … (fitted to the wire limit). Each name remembers the next number to
 * try, so a server listing thousands of tools whose names clash after
 * sanitizing costs linear time; trying from `_2` every time cost the square
 * of their number (20,000 clashing names held the event loop for a minute).
 * The names given are the same either way, since taken names are never freed.
 */
export function createNameAllocator(): (candidate: string) => string {
  const taken = new Set<string>()
  const next = new Map<string, number>()
  return (candidate) => {
    let name = candidate
    let i = next.get(candidate) ?? 2
    while (taken.has(name))
      name = fitWireName(`${candidate}_${i++}`)
    next.set(candidate, i)
    taken.add(name)
    return name
  }
}
