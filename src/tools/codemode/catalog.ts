/**
 * The tools a script can reach, as the codemode tool describes them: to the
 * model in its description, and to scripts through `searchTools()` and
 * `describeTool()`.
 */

import type { ToolCatalogEntry } from '../tool-search'
import type { ToolDef, ToolMap } from '../types'
import { CALL_TOOL_NAME, TOOL_SEARCH_NAME } from '../tool-search'

/** A tool scripts can call. */
export interface CodemodeEntry extends ToolCatalogEntry {
  /** Held back by lazy disclosure: a script's call loads it first. */
  readonly deferred: boolean
  /** The tool's own `isConcurrencySafe`, so a script's calls are ordered as a turn's are. */
  readonly concurrencySafe?: ToolDef['isConcurrencySafe']
}

/** The name of the tool codemode adds. */
export const CODEMODE_TOOL_NAME = 'codemode'

/**
 * The tools of a run a script may call, in registration order: every tool
 * but codemode itself, the discovery tools (scripts have `searchTools()`)
 * and dispatch envelopes (scripts call tools by name).
 */
export function codemodeCatalog(tools: ToolMap, aliases: Readonly<Record<string, string>> | undefined, deferred: ReadonlySet<string>): CodemodeEntry[] {
  const entries: CodemodeEntry[] = []
  for (const def of Object.values(tools)) {
    const name = def.spec.name
    if (name === CODEMODE_TOOL_NAME || name === TOOL_SEARCH_NAME || name === CALL_TOOL_NAME || def.unwrap)
      continue
    entries.push({
      name,
      wireName: aliases?.[name] || name,
      description: def.spec.description,
      inputSchema: def.spec.inputSchema,
      ...(def.mcp ? { server: def.mcp.server } : {}),
      deferred: deferred.has(name),
      ...(def.isConcurrencySafe === undefined ? {} : { concurrencySafe: def.isConcurrencySafe }),
    })
  }
  return entries
}

const WHITESPACE_RUN = /\s+/g
const SENTENCE_END = /^(.{20,}?[.!?])\s/

/** The first sentence of a description, on one line. */
export function firstSentence(text: string): string {
  const line = text.replace(WHITESPACE_RUN, ' ').trim()
  const sentence = SENTENCE_END.exec(`${line} `)
  const short = sentence ? sentence[1] : line
  return short.length > 200 ? `${short.slice(0, 199)}…` : short
}

/** A TypeScript-like signature of a tool's input: `{ path: string, limit?: number }`. */
export function signatureOf(schema: Readonly<Record<string, unknown>>): string {
  return typeText(schema, 0)
}

function typeText(schema: unknown, depth: number): string {
  if (typeof schema !== 'object' || schema === null)
    return 'any'
  const node = schema as Record<string, unknown>
  if (Array.isArray(node.enum) && node.enum.length > 0 && node.enum.length <= 8)
    return node.enum.map(value => JSON.stringify(value)).join(' | ')
  const type = Array.isArray(node.type) ? node.type.filter(entry => entry !== 'null')[0] : node.type
  if (type === 'string' || type === 'boolean' || type === 'null')
    return type
  if (type === 'integer' || type === 'number')
    return 'number'
  if (type === 'array')
    return depth > 2 ? 'any[]' : `${wrapUnion(typeText(node.items, depth + 1))}[]`
  const properties = node.properties
  if (type === 'object' || (typeof properties === 'object' && properties !== null)) {
    if (typeof properties !== 'object' || properties === null || depth > 2)
      return 'object'
    const required = new Set(Array.isArray(node.required) ? node.required : [])
    const fields = Object.entries(properties).map(([key, value]) => `${key}${required.has(key) ? '' : '?'}: ${typeText(value, depth + 1)}`)
    return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`
  }
  return 'any'
}

function wrapUnion(text: string): string {
  return text.includes(' | ') ? `(${text})` : text
}
