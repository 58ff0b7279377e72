/**
 * How a tool finds the context it must run in. The agent puts its context on
 * the tool context as `execution`; a tool called outside an agent (a unit
 * test, a host calling `execute` directly) falls back to one shared process
 * context in `process.cwd()`, so built-in tools never touch the host directly.
 */

import type { ToolContext } from '../tools/types'
import type { ExecutionContext } from './types'
import { createProcessContext } from './process'

let fallback: ExecutionContext | undefined

/** The process context used when a tool context carries none; created on first use. */
export function defaultExecutionContext(): ExecutionContext {
  fallback ??= createProcessContext()
  return fallback
}

/** The execution context a tool call must use. */
export function executionContextOf(ctx: ToolContext): ExecutionContext {
  return (ctx as { execution?: ExecutionContext }).execution ?? defaultExecutionContext()
}
