/**
 * How a tool finds the context it must run in. The agent puts its context on
 * the tool context as `execution`; a tool called outside an agent (a unit
 * test, a host calling `execute` directly) falls back to one shared process
 * context in `process.cwd()`, so built-in tools never touch the host directly.
 * Either way a file-backed session's directory stays hidden from them.
 */

import type { ToolContext } from '../tools/types'
import type { ExecutionContext } from './types'
import { hiddenSessionDir, hideDirectory } from './hidden-paths'
import { createProcessContext } from './process'

let fallback: ExecutionContext | undefined

/** The process context used when a tool context carries none; created on first use. */
export function defaultExecutionContext(): ExecutionContext {
  fallback ??= createProcessContext()
  return fallback
}

/**
 * The execution context a built-in tool call must use: the run's, with the
 * session store's directory hidden when the session lives in local files.
 */
export function executionContextOf(ctx: ToolContext): ExecutionContext {
  const context = (ctx as { execution?: ExecutionContext }).execution ?? defaultExecutionContext()
  const hidden = hiddenSessionDir(context, ctx.session?.store?.localPath)
  return hidden === undefined ? context : hideDirectory(context, hidden)
}
