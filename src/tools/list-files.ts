/** The built-in `list_files` tool: a recursive listing of a directory through the execution context. */

import type { ToolDescriptionOverride } from './prompts'
import type { ToolContext, ToolDef } from './types'
import { Buffer } from 'node:buffer'
import { z } from 'zod'
import { executionContextOf } from '../contexts/from-tool-context'
import { describeFileError, displayPath, formatBytes } from './file-content'
import { DEFAULT_LIST_LIMIT, DEFAULT_READ_MAX_BYTES, IGNORED_DIRECTORIES } from './file-limits'
import { compareTreePaths, walkTree } from './file-walk'
import { resolveToolDescription } from './prompts'
import { tool } from './tool'

/** The arguments of the `list_files` tool. */
export interface ListFilesInput {
  path?: string
}

/** Options of `createListFilesTool`. */
export interface ListFilesToolOptions {
  description?: ToolDescriptionOverride
  /** Entries listed before the listing stops. Default 1000. */
  limit?: number
  /**
   * Bytes of listing text before the listing stops. Default 100 KiB, what one
   * `read_file` call returns: a deep tree's paths run to thousands of
   * characters each, and 1000 of them would fill the context.
   */
  maxBytes?: number
  /** Directory names shown but not entered. Default: `.git`, `node_modules` and similar. */
  ignore?: ReadonlySet<string>
}

const input = z.object({
  path: z.string().optional().describe('Directory to list, absolute or relative to the working directory. Default: the working directory.'),
})

/** The `list_files` tool: a directory's files and subdirectories, recursively. */
export function createListFilesTool(options: ListFilesToolOptions = {}): ToolDef<ListFilesInput> {
  return tool({
    name: 'list_files',
    description: resolveToolDescription('list_files', options.description),
    input,
    isConcurrencySafe: true,
    execute: (args, ctx) => runListFiles(args, ctx, options),
  })
}

function suffix(type: string, skipped: boolean | undefined): string {
  if (type === 'directory')
    return skipped ? '/ (not listed)' : '/'
  return type === 'symlink' ? '@' : ''
}

async function runListFiles(args: ListFilesInput, ctx: ToolContext, options: ListFilesToolOptions): Promise<string> {
  const context = executionContextOf(ctx)
  const root = context.resolvePath(args.path || '.')
  const shown = displayPath(context, root)
  const info = await context.stat(root).catch((error: unknown) => {
    throw new Error(describeFileError(error, shown))
  })
  if (!info)
    throw new Error(`Directory not found: ${shown}`)
  if (info.type !== 'directory')
    throw new Error(`${shown} is a file, not a directory; use read_file to read it.`)

  const limit = options.limit ?? DEFAULT_LIST_LIMIT
  const maxBytes = options.maxBytes ?? DEFAULT_READ_MAX_BYTES
  const rows: { path: string, text: string }[] = []
  let bytes = 0
  let stop: string | undefined
  // Walked breadth-first so a cut listing still shows the top of the tree, then sorted as a tree.
  for await (const entry of walkTree(context, root, { ignore: options.ignore ?? IGNORED_DIRECTORIES, signal: ctx.signal })) {
    if (rows.length === limit) {
      stop = `${limit} entries`
      break
    }
    const path = displayPath(context, entry.path)
    const text = `${path}${suffix(entry.type, entry.skipped)}`
    bytes += Buffer.byteLength(text, 'utf8') + 1
    if (bytes > maxBytes && rows.length > 0) {
      stop = `${rows.length} entries, ${formatBytes(maxBytes)} of text`
      break
    }
    rows.push({ path, text })
  }
  if (rows.length === 0)
    return `(${shown} is empty)`
  rows.sort((a, b) => compareTreePaths(a.path, b.path))
  const body = rows.map(row => row.text).join('\n')
  return stop !== undefined ? `${body}\n\n[Listing stopped at ${stop}; list a subdirectory to see the rest.]` : body
}

/** The built-in `list_files` tool. */
export const listFiles: ToolDef<ListFilesInput> = createListFilesTool()
