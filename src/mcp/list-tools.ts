/**
 * Reading a server's `tools/list`: every page, each tool checked on its own,
 * the whole bounded (see `listServerTools`).
 */

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { McpToolSchema } from './types'
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js'
import { cutText, schemaProblems } from './tools'

/**
 * Most tools read from one server's `tools/list`, over all its pages. Every
 * request carries every tool, so no model could use that many; the cap bounds
 * the memory a server that lists for ever can take.
 */
export const MAX_MCP_LISTED_TOOLS = 10_000

/**
 * Longest tool description, or server `instructions`, kept, in characters
 * (UTF-16 units); a longer one is cut. Every request of every run carries
 * them, so a text of megabytes would overflow the model's context on every
 * request.
 */
export const MAX_MCP_DESCRIPTION_CHARS = 10_000

/**
 * Longest tool name a listing keeps, in characters; a tool with a longer one
 * is left out. The MCP spec asks for at most 128; the name becomes part of
 * the tool's name in the run, which every request carries and every call
 * the model makes repeats.
 */
export const MAX_MCP_TOOL_NAME_CHARS = 256

/**
 * Most `tools/list` pages read from one server. `MAX_MCP_LISTED_TOOLS` counts
 * tools, so pages without any would go on until `bootstrapTimeout`.
 */
export const MAX_MCP_LIST_PAGES = 1_000

/**
 * Longest `nextCursor` followed, in characters. Every cursor is kept to notice
 * one given twice, so cursors of a megabyte each filled a gigabyte in a
 * thousand pages.
 */
export const MAX_MCP_CURSOR_CHARS = 4_096

/** A server's `tools/list` answer: one page of tools and the cursor of the next. */
type ListPage = Record<string, unknown>

/**
 * Every page of a server's `tools/list`, each tool checked on its own.
 * The SDK's `listTools` checks a page as a whole, so one malformed tool
 * (a schema that is not an object, a name that is not a string) failed the
 * whole server, with zod's error whose message lists every problem (42 MB for
 * 200,000 bad tools). Here a bad tool is left out and the server keeps the
 * rest. The listing is also bounded: it stops at `MAX_MCP_LISTED_TOOLS`,
 * after `MAX_MCP_LIST_PAGES` pages, at a cursor longer than
 * `MAX_MCP_CURSOR_CHARS` and at a cursor seen before (a server paginating for
 * ever filled hundreds of megabytes before `bootstrapTimeout` failed it),
 * keeping the tools read so far. A tool listed twice keeps its first entry, a
 * tool whose name is over `MAX_MCP_TOOL_NAME_CHARS` is left out, and a
 * description or title over `MAX_MCP_DESCRIPTION_CHARS` is cut: names and
 * descriptions (a title stands in for a missing description) go with every
 * request. Each kind of problem is reported once to `report`, naming the
 * first few.
 */
export async function listServerTools(server: string, listPage: (cursor: string | undefined) => Promise<ListPage>, report: (error: Error) => void): Promise<McpToolSchema[]> {
  const where = `MCP server "${server}"`
  const tools: McpToolSchema[] = []
  const names = new Set<string>()
  // Only the first few problems are kept to be named; the rest are counted.
  const invalid: unknown[] = []
  let invalidCount = 0
  const duplicates: string[] = []
  let duplicateCount = 0
  const overLong: string[] = []
  let overLongCount = 0
  let cut = 0
  let cutTitles = 0
  let listed = 0
  let overflow = false
  const cursors = new Set<string>()
  let cursor: string | undefined
  let pages = 0
  do {
    if (pages++ === MAX_MCP_LIST_PAGES) {
      report(new TypeError(`${where} answered tools/list with more than ${MAX_MCP_LIST_PAGES} pages; the listing stops there`))
      break
    }
    const page = await listPage(cursor)
    if (!Array.isArray(page.tools))
      throw new TypeError(`${where} answered tools/list without a tools array`)
    for (const raw of page.tools) {
      if (listed === MAX_MCP_LISTED_TOOLS) {
        overflow = true
        break
      }
      const parsed = ToolSchema.safeParse(raw)
      const at = listed++
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        if (invalidCount++ < 5)
          invalid.push({ message: issue?.message, path: ['tools', at, ...(issue?.path ?? [])] })
        continue
      }
      const tool = parsed.data as McpToolSchema
      if (tool.name.length > MAX_MCP_TOOL_NAME_CHARS) {
        if (overLongCount++ < 5)
          overLong.push(tool.name)
        continue
      }
      if (names.has(tool.name)) {
        if (duplicateCount++ < 5)
          duplicates.push(tool.name)
        continue
      }
      names.add(tool.name)
      if (typeof tool.description === 'string' && tool.description.length > MAX_MCP_DESCRIPTION_CHARS) {
        tool.description = cutText(tool.description, MAX_MCP_DESCRIPTION_CHARS)
        cut++
      }
      if (typeof tool.title === 'string' && tool.title.length > MAX_MCP_DESCRIPTION_CHARS) {
        tool.title = cutText(tool.title, MAX_MCP_DESCRIPTION_CHARS)
        cutTitles++
      }
      tools.push(tool)
    }
    if (overflow) {
      report(new TypeError(`${where} lists more than ${MAX_MCP_LISTED_TOOLS} tools; the rest are left out`))
      break
    }
    const next = page.nextCursor
    if (next !== undefined && typeof next !== 'string')
      throw new TypeError(`${where} answered tools/list with a nextCursor that is not a string`)
    if (next && next.length > MAX_MCP_CURSOR_CHARS) {
      report(new TypeError(`${where} answered tools/list with a nextCursor longer than ${MAX_MCP_CURSOR_CHARS} characters; the listing stops there`))
      break
    }
    if (next && cursors.has(next)) {
      report(new TypeError(`${where} answered tools/list with a nextCursor it gave before (${JSON.stringify(cutText(next))}); the listing stops there`))
      break
    }
    if (next)
      cursors.add(next)
    cursor = next
  } while (cursor)
  if (invalidCount > 0)
    report(new TypeError(`${where}: ${invalidCount} listed tool${invalidCount === 1 ? ' does' : 's do'} not match the MCP schema and ${invalidCount === 1 ? 'is' : 'are'} left out: ${schemaProblems(invalid, 'tools')}${invalidCount > invalid.length ? `; and ${invalidCount - invalid.length} more` : ''}`))
  if (duplicateCount > 0)
    report(new TypeError(`${where} lists ${duplicateCount} tool${duplicateCount === 1 ? '' : 's'} a second time (${duplicates.map(name => JSON.stringify(cutText(name))).join(', ')}${duplicateCount > duplicates.length ? ', …' : ''}); only the first of each name is kept`))
  if (overLongCount > 0)
    report(new TypeError(`${where} lists ${overLongCount} tool${overLongCount === 1 ? '' : 's'} named with more than ${MAX_MCP_TOOL_NAME_CHARS} characters (${overLong.map(name => JSON.stringify(cutText(name, 40))).join(', ')}${overLongCount > overLong.length ? ', …' : ''}); ${overLongCount === 1 ? 'it is' : 'they are'} left out`))
  if (cut > 0)
    report(new TypeError(`${where}: the description of ${cut} tool${cut === 1 ? ' is' : 's are'} longer than ${MAX_MCP_DESCRIPTION_CHARS} characters and was cut`))
  if (cutTitles > 0)
    report(new TypeError(`${where}: the title of ${cutTitles} tool${cutTitles === 1 ? ' is' : 's are'} longer than ${MAX_MCP_DESCRIPTION_CHARS} characters and ${cutTitles === 1 ? 'was' : 'were'} cut`))
  return tools
}

/**
 * What the SDK's `listTools` remembers of each page (output schemas to check
 * results against, task support), for the whole listing at once: its own
 * `listTools` is bypassed (see `listServerTools`), and it kept only the last
 * page's anyway.
 */
export function rememberToolMetadata(client: Client, tools: McpToolSchema[]): void {
  // Not part of the SDK's public API: a release that renamed it must not fail every connect
  // (test/mcp/server-schemas.test.ts notices the output checks going missing).
  const remember = (client as unknown as { cacheToolMetadata?: unknown }).cacheToolMetadata
  if (typeof remember === 'function')
    remember.call(client, tools)
}
