/**
 * The searchable-tool catalog of lazy disclosure: tools whose schemas stay
 * out of the tools array until the model asks for them. Entries keep the
 * order they were registered in, so everything rendered from the catalog is
 * byte-stable across turns and runs.
 */

import { MAX_QUERY_CHARS, queryWords } from '../../text/query-words'

/** One tool the model can find with `tool_search`. */
export interface ToolCatalogEntry {
  /** Canonical name (`mcp__<server>__<tool>` for MCP tools); what the unlock set holds. */
  name: string
  /** Name the model uses (the alias when there is one). */
  wireName: string
  description: string
  inputSchema: Record<string, unknown>
  /** MCP server the tool comes from, for grouping and for queries naming the server. */
  server?: string
}

/** `select:a,b` asks for exact names instead of a keyword search. */
const SELECT_PREFIX = 'select:'
const WORD_BREAK = /[^a-z0-9]+/
const WHITESPACE_RUN = /\s+/g

/**
 * Rank the catalog against a query. `select:name1,name2` picks exact names
 * (wire or canonical). Otherwise the query is split into words and each
 * entry scores by where the words occur: an exact name beats a word inside
 * the name, which beats the server name, which beats the description.
 * Entries that match no word are left out; ties keep catalog order.
 */
export function searchCatalog(catalog: readonly ToolCatalogEntry[], query: string, limit: number): ToolCatalogEntry[] {
  // Scoring costs words × tools × description length on the agent's thread, and a script's searchTools() passes
  // whatever it likes: a 1 MB query held the thread for 30 s, past the script's own time limit.
  const trimmed = query.slice(0, MAX_QUERY_CHARS).trim()
  const lowered = trimmed.toLowerCase()
  if (lowered.startsWith(SELECT_PREFIX)) {
    const wanted = trimmed.slice(SELECT_PREFIX.length).split(',').map(name => name.trim()).filter(Boolean)
    const picked: ToolCatalogEntry[] = []
    for (const name of wanted) {
      const entry = catalog.find(e => e.wireName === name || e.name === name)
      if (entry && !picked.includes(entry))
        picked.push(entry)
      if (picked.length >= limit)
        break
    }
    return picked.slice(0, limit)
  }
  const words = queryWords(trimmed)
  if (words.length === 0)
    return []
  const scored: { entry: ToolCatalogEntry, score: number, index: number }[] = []
  catalog.forEach((entry, index) => {
    const score = scoreEntry(entry, lowered, words)
    if (score > 0)
      scored.push({ entry, score, index })
  })
  scored.sort((a, b) => b.score - a.score || a.index - b.index)
  return scored.slice(0, limit).map(item => item.entry)
}

function scoreEntry(entry: ToolCatalogEntry, query: string, words: readonly string[]): number {
  const wire = entry.wireName.toLowerCase()
  const canonical = entry.name.toLowerCase()
  if (query === wire || query === canonical)
    return 1000
  const nameWords = new Set(wire.split(WORD_BREAK))
  const server = entry.server?.toLowerCase() ?? ''
  const description = entry.description.toLowerCase()
  let score = 0
  for (const word of words) {
    if (nameWords.has(word))
      score += 10
    else if (wire.includes(word))
      score += 6
    if (server && server.includes(word))
      score += 3
    if (description.includes(word))
      score += 2
  }
  return score
}

/** How the system prompt lists the tools that are not loaded yet. */
export interface CatalogSectionOptions {
  /** `'full'`: name and description; `'names'`: names only. */
  detail: 'full' | 'names'
  /** Wire name of the tool that loads schemas; absent when the host ships no discovery tool. */
  searchTool?: string
  /** Wire name of the dispatch envelope, when surfaced tools are called through it. */
  callTool?: string
  /** Wire name of the codemode tool, whose scripts find (`searchTools`), describe and call these tools. */
  scriptTool?: string
}

/**
 * The system-prompt section that lists the catalog, grouped by server in
 * catalog order. Without a search tool the section only lists, so the model
 * is never pointed at a tool that does not exist.
 */
export function renderCatalogSection(catalog: readonly ToolCatalogEntry[], options: CatalogSectionOptions): string {
  const lines = ['# Searchable Tools', '']
  if (options.searchTool) {
    lines.push(`The tools below are available, but their input schemas are not loaded. Call \`${options.searchTool}\` with keywords (or \`select:<name>,<name>\`) to load the schemas you need${
      options.callTool
        ? `, then run a loaded tool with \`${options.callTool}\` ({ "name": "<tool name>", "arguments": { … } }).`
        : '; a loaded tool can be called directly from the next turn.'}`)
    lines.push('')
  }
  if (options.scriptTool) {
    lines.push(`Inside a \`${options.scriptTool}\` script, \`await searchTools(query)\` finds these tools, \`await describeTool(name)\` gives one's input schema, and \`tools.<name>(args)\` calls it.`)
    lines.push('')
  }
  const groups = new Map<string, ToolCatalogEntry[]>()
  for (const entry of catalog) {
    const key = entry.server ?? ''
    const group = groups.get(key)
    if (group)
      group.push(entry)
    else
      groups.set(key, [entry])
  }
  for (const [server, entries] of groups) {
    if (server)
      lines.push(`## ${server}`)
    for (const entry of entries) {
      const description = options.detail === 'full' ? oneLine(entry.description) : ''
      lines.push(description ? `- ${entry.wireName}: ${description}` : `- ${entry.wireName}`)
    }
    lines.push('')
  }
  return lines.join('\n').trimEnd()
}

/** Descriptions can span paragraphs; the catalog keeps one line per tool. */
function oneLine(text: string): string {
  return text.replace(WHITESPACE_RUN, ' ').trim()
}
