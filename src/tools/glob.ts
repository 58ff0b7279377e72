/** The built-in `glob` tool: files whose path matches a pattern, found by walking the execution context. */

import type { ToolDescriptionOverride } from './prompts'
import type { ToolContext, ToolDef } from './types'
import { z } from 'zod'
import { executionContextOf } from '../contexts/from-tool-context'
import { describeDir, describeFileError, displayPath, joinPath } from './file-content'
import { DEFAULT_GLOB_LIMIT, IGNORED_DIRECTORIES } from './file-limits'
import { compareTreePaths, walkTree } from './file-walk'
import { globMatcher, globParts, stripDotSlash } from './glob-pattern'
import { resolveToolDescription } from './prompts'
import { tool } from './tool'

/** The arguments of the `glob` tool. */
export interface GlobInput {
  pattern: string
  path?: string
}

/** Options of `createGlobTool`. */
export interface GlobToolOptions {
  description?: ToolDescriptionOverride
  /** Paths returned before the search stops. Default 500. */
  limit?: number
  /** Directory names not entered unless the pattern names them. Default: `.git`, `node_modules` and similar. */
  ignore?: ReadonlySet<string>
}

const input = z.object({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/**/*.{js,json}".'),
  path: z.string().optional().describe('Directory the pattern is relative to. Default: the working directory.'),
})

/** The `glob` tool: paths matching a glob pattern. */
export function createGlobTool(options: GlobToolOptions = {}): ToolDef<GlobInput> {
  return tool({
    name: 'glob',
    description: resolveToolDescription('glob', options.description),
    input,
    isConcurrencySafe: true,
    execute: (args, ctx) => runGlob(args, ctx, options),
  })
}

/** Matching file paths under `root` in walk order, at most `limit` (plus whether more exist). */
async function globFiles(ctx: ToolContext, root: string, pattern: string, options: { limit: number, ignore: ReadonlySet<string> }): Promise<{ paths: string[], more: boolean }> {
  const context = executionContextOf(ctx)
  const cleaned = stripDotSlash(pattern)
  const matches = globMatcher(cleaned)
  const parts = globParts(cleaned)
  const start = parts.base === '' ? root : joinPath(root, parts.base)
  // The walk starts at the pattern's literal prefix; paths are matched as seen from `root`.
  const prefix = parts.base.endsWith('/') ? parts.base.slice(0, -1) : parts.base
  const ignore = new Set([...options.ignore].filter(name => !parts.literals.has(name)))

  const info = await context.stat(start).catch(() => undefined)
  if (info?.type !== 'directory')
    return { paths: [], more: false }

  const paths: string[] = []
  const walk = walkTree(context, start, { ignore, maxDepth: parts.recursive ? undefined : parts.depth, signal: ctx.signal })
  for await (const entry of walk) {
    if (entry.type === 'directory')
      continue
    const relative = parts.base === '' ? entry.relative : `${prefix}/${entry.relative}`
    if (!matches(relative))
      continue
    if (paths.length === options.limit)
      return { paths, more: true }
    paths.push(entry.path)
  }
  return { paths, more: false }
}

async function runGlob(args: GlobInput, ctx: ToolContext, options: GlobToolOptions): Promise<string> {
  const context = executionContextOf(ctx)
  const root = context.resolvePath(args.path || '.')
  const shownRoot = displayPath(context, root)
  const info = await context.stat(root).catch((error: unknown) => {
    throw new Error(describeFileError(error, shownRoot))
  })
  if (!info || info.type !== 'directory')
    throw new Error(`${shownRoot} is not a directory; glob needs a directory as path.`)

  const limit = options.limit ?? DEFAULT_GLOB_LIMIT
  const { paths, more } = await globFiles(ctx, root, args.pattern, { limit, ignore: options.ignore ?? IGNORED_DIRECTORIES })
  if (paths.length === 0)
    return `No files match ${args.pattern} in ${describeDir(shownRoot)}.`
  const lines = paths.map(path => displayPath(context, path)).sort(compareTreePaths).join('\n')
  return more ? `${lines}\n\n[More than ${limit} files match; showing the first ${limit} found. Narrow the pattern or path.]` : lines
}

/** The built-in `glob` tool. */
export const glob: ToolDef<GlobInput> = createGlobTool()
