/**
 * The built-in `grep` tool: a regular-expression search over file contents,
 * implemented over the execution context's file API (no `grep` or `rg`
 * binary needed, so it works the same in every context).
 */

import type { ToolDescriptionOverride } from './prompts'
import type { ToolContext, ToolDef } from './types'
import { z } from 'zod'
import { fileErrorCode } from '../contexts/errors'
import { executionContextOf } from '../contexts/from-tool-context'
import { clipEcho } from '../text/clip-echo'
import { truncateText } from '../text/truncate'
import { decodeText, describeDir, describeFileError, displayPath, formatBytes, looksBinary } from './file-content'
import { DEFAULT_GREP_LIMIT, DEFAULT_GREP_MAX_FILE_BYTES, GREP_LINE_CHARS, IGNORED_DIRECTORIES } from './file-limits'
import { walkTree } from './file-walk'
import { pathMatcher } from './glob-pattern'
import { compileGrepPattern } from './grep-pattern'
import { resolveToolDescription } from './prompts'
import { tool } from './tool'

/** The arguments of the `grep` tool. */
export interface GrepInput {
  pattern: string
  path?: string
  glob?: string
}

/** Options of `createGrepTool`. */
export interface GrepToolOptions {
  description?: ToolDescriptionOverride
  /** Matching lines returned before the search stops. Default 200. */
  limit?: number
  /** Files bigger than this are skipped. Default 4 MiB. */
  maxFileBytes?: number
  /** Directory names not entered. Default: `.git`, `node_modules` and similar. */
  ignore?: ReadonlySet<string>
}

const input = z.object({
  pattern: z.string().min(1).describe('Regular expression (RE2 syntax, as in ripgrep: no lookaround or backreferences) to look for in each line.'),
  path: z.string().optional().describe('File or directory to search. Default: the working directory.'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.js".'),
})

/** Files read at once; enough to hide per-file latency of a remote context without flooding it. */
const READ_CONCURRENCY = 8

/** The `grep` tool: lines matching a regular expression, with their paths and line numbers. */
export function createGrepTool(options: GrepToolOptions = {}): ToolDef<GrepInput> {
  return tool({
    name: 'grep',
    description: resolveToolDescription('grep', options.description),
    input,
    isConcurrencySafe: true,
    execute: (args, ctx) => runGrep(args, ctx, options),
  })
}

/** Characters of a long line shown before its match. */
const CONTEXT_BEFORE_MATCH = GREP_LINE_CHARS / 3

/**
 * A line as a result shows it. A long one (a minified file is one line) is
 * cut to a window around its first match, `…` marking each cut, so the match
 * is in the result wherever it sits in the line.
 */
function clip(line: string, matchAt: number): string {
  if (line.length <= GREP_LINE_CHARS)
    return line
  let start = Math.max(0, Math.min(matchAt - CONTEXT_BEFORE_MATCH, line.length - GREP_LINE_CHARS))
  // Not inside a surrogate pair.
  if (start > 0 && isLowSurrogate(line.charCodeAt(start)))
    start++
  const window = truncateText(line.slice(start), GREP_LINE_CHARS)
  return `${start > 0 ? '…' : ''}${window}${start + window.length < line.length ? '…' : ''}`
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xDC00 && code <= 0xDFFF
}

interface Counts {
  searched: number
  binary: number
  large: number
}

async function runGrep(args: GrepInput, ctx: ToolContext, options: GrepToolOptions): Promise<string> {
  const context = executionContextOf(ctx)
  const matchesLine = compileGrepPattern(args.pattern)
  const root = context.resolvePath(args.path || '.')
  const shownRoot = displayPath(context, root)
  const info = await context.stat(root).catch((error: unknown) => {
    throw new Error(describeFileError(error, shownRoot))
  })
  if (!info)
    throw new Error(`Not found: ${clipEcho(shownRoot)}`)

  const limit = options.limit ?? DEFAULT_GREP_LIMIT
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_GREP_MAX_FILE_BYTES
  const matches = pathMatcherOrAll(args.glob)
  const counts: Counts = { searched: 0, binary: 0, large: 0 }
  const results: string[] = []
  let truncated = false

  const searchFile = async (path: string): Promise<string[]> => {
    // Per file: an aborted run must not go on reading thousands of them.
    ctx.signal.throwIfAborted()
    const stat = await context.stat(path).catch(() => undefined)
    if (!stat || stat.type !== 'file')
      return []
    if (stat.size > maxFileBytes) {
      counts.large++
      return []
    }
    // Capped whatever the size said: a file under /proc says 0 and may never end.
    const bytes = await context.readFile(path, { maxBytes: maxFileBytes }).catch((error: unknown) => {
      if (fileErrorCode(error) === 'EFBIG')
        counts.large++
      return undefined
    })
    ctx.signal.throwIfAborted()
    if (!bytes)
      return []
    if (looksBinary(bytes)) {
      counts.binary++
      return []
    }
    counts.searched++
    const shown = displayPath(context, path)
    const found: string[] = []
    const lines = decodeText(bytes).split('\n')
    for (let i = 0; i < lines.length && found.length <= limit; i++) {
      const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i]
      const matchAt = matchesLine(line)
      if (matchAt !== -1)
        found.push(`${shown}:${i + 1}: ${clip(line, matchAt)}`)
    }
    return found
  }

  const take = (found: string[]) => {
    for (const line of found) {
      if (results.length === limit) {
        truncated = true
        return
      }
      results.push(line)
    }
  }

  if (info.type !== 'directory') {
    take(await searchFile(root))
  }
  else {
    // Files are read in small concurrent batches, but results are taken in walk order so output is stable.
    let batch: string[] = []
    const flush = async () => {
      for (const found of await Promise.all(batch.map(searchFile))) take(found)
      batch = []
    }
    for await (const entry of walkTree(context, root, { ignore: options.ignore ?? IGNORED_DIRECTORIES, signal: ctx.signal })) {
      if (entry.type === 'directory' || !matches(entry.relative))
        continue
      batch.push(entry.path)
      if (batch.length === READ_CONCURRENCY)
        await flush()
      if (truncated)
        break
    }
    if (!truncated)
      await flush()
  }

  const skipped = skippedNote(counts, maxFileBytes)
  if (results.length === 0)
    return `No matches for /${clipEcho(args.pattern)}/ in ${describeDir(clipEcho(shownRoot))} (${counts.searched} file${counts.searched === 1 ? '' : 's'} searched${args.glob ? `, glob ${clipEcho(args.glob)}` : ''}).${skipped}`
  const tail = truncated ? `\n\n[Stopped at ${limit} matches; narrow the pattern, path or glob to see the rest.]` : ''
  return `${results.join('\n')}${tail}${skipped ? `\n${skipped.trim()}` : ''}`
}

function pathMatcherOrAll(glob: string | undefined): (relative: string) => boolean {
  return glob ? pathMatcher(glob) : () => true
}

function skippedNote(counts: Counts, maxFileBytes: number): string {
  const parts: string[] = []
  if (counts.binary > 0)
    parts.push(`${counts.binary} binary file${counts.binary === 1 ? '' : 's'}`)
  if (counts.large > 0)
    parts.push(`${counts.large} file${counts.large === 1 ? '' : 's'} over ${formatBytes(maxFileBytes)}`)
  return parts.length > 0 ? ` [Skipped ${parts.join(' and ')}.]` : ''
}

/** The built-in `grep` tool. */
export const grep: ToolDef<GrepInput> = createGrepTool()
