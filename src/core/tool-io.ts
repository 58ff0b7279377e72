/**
 * What tools hand back and what the loop records for a call: the tool I/O
 * shapes every layer shares (tools produce them, providers send them, hooks
 * carry them).
 */

import type { ToolResultContent } from './content'

/** What a mutating tool did, reported through `ctx.reportOutcome` and surfaced on `tool:after`. */
export type ToolOutcome = 'created' | 'updated' | 'edited' | 'noop' | 'failed'

/**
 * One progress report of a running tool (`ToolContext.progress`), as hooks
 * (`tool:progress`) and `agent.stream()` (`tool-progress`) receive it. The
 * model never reads it.
 */
export interface ToolProgress {
  /** What the report is about, free-form (`'message'` when a tool passes a plain string). */
  kind: string
  /** A line for a person to read ("Downloaded 3 of 10 files"); cut to `TOOL_PROGRESS_LIMITS.maxTextChars`. */
  text?: string
  /** The tool the report is about, when it is not the reporting tool itself (a tool that calls others). */
  tool?: string
  /** A line number in what the tool runs (a script's line), when that helps. */
  line?: number
  /** Units of work done so far, with `total`, for a progress bar. */
  completed?: number
  /** Units of work in all, when known. */
  total?: number
}

/** How much progress one tool call can deliver (`ToolContext.progress`). */
export const TOOL_PROGRESS_LIMITS = Object.freeze({
  /** Reports delivered per call; later ones are dropped. */
  maxEvents: 1000,
  /** Characters of `text` kept per report; the rest is cut. */
  maxTextChars: 2000,
})

/**
 * How much one tool result may hold. A tool's result is recorded in the
 * session and replayed in every later request, so one oversized answer would
 * cost every turn after it; past a few tens of MiB no provider accepts the
 * request anyway, and a JSON writer that escapes each character (control
 * characters take six) could not even write the session's log line.
 */
export const TOOL_OUTPUT_LIMITS = Object.freeze({
  /**
   * UTF-16 units of text, base64 data, media types and names in one result
   * (32 Mi: a 20 MiB PDF as base64 fits). The rest is cut, with a note.
   */
  maxChars: 32 * 1024 * 1024,
  /**
   * UTF-16 units in all the results of one turn (64 Mi). A turn's results are
   * stored together, and in JSON a control character takes six: past this,
   * later results are cut, then replaced by an error result saying they did
   * not fit, so the turn can still be written. The arguments of the nested
   * calls recorded on the results (codemode's, `ctx.callTool`'s) count too,
   * after the results: past what the results leave, a record keeps a note in
   * place of its arguments.
   */
  maxTurnChars: 64 * 1024 * 1024,
})

/** What a tool passes to `ctx.progress`: a report, or plain text (kind `'message'`). */
export type ToolProgressUpdate = string | (Partial<ToolProgress> & { kind?: string })

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
