/**
 * What tools hand back and what the loop records for a call: the tool I/O
 * shapes every layer shares (tools produce them, providers send them, hooks
 * carry them).
 */

import type { ToolResultContent } from './content'

/** What a mutating tool did, reported through `ctx.reportOutcome` and surfaced on `tool:after`. */
export type ToolOutcome = 'created' | 'updated' | 'edited' | 'noop' | 'failed'

/** What a tool returns: plain text, or blocks when it has media to keep. */
export type ToolOutput = string | ToolResultContent[]

/** Outcome of checking a tool's input before it runs. `value` is what `execute` receives. */
export type ValidationResult<T = Record<string, unknown>>
  = | { ok: true, value: T }
    | { ok: false, error: string }

/** The answer to one tool call, paired by `callId`. */
export interface ToolResult {
  callId: string
  output: string | ToolResultContent[]
  isError?: boolean
}
