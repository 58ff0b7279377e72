/** What the model reads of a script: what it printed, then its return value, or how it failed. */

import type { ScriptOutcome } from './sandbox'

/** Bounds of the text the model reads. */
export interface ScriptResultContext {
  readonly timeoutMs: number
  readonly memoryLimitBytes: number
  readonly maxPrintChars: number
  readonly maxValueChars: number
}

/** The tool result of one script. */
export function formatScriptResult(outcome: ScriptOutcome, context: ScriptResultContext): { output: string, isError: boolean } {
  const lines = [...outcome.printed]
  if (outcome.droppedLines > 0)
    lines.push(`[${outcome.droppedLines} more printed line${outcome.droppedLines === 1 ? '' : 's'} left out: a script's printed output is kept up to ${context.maxPrintChars} characters]`)
  const { end } = outcome
  let isError = false
  if (end.kind === 'value') {
    if (end.value)
      lines.push(`Returned: ${end.value.text}${outcome.valueCut ? ` [cut at ${context.maxValueChars} characters]` : ''}`)
    else if (lines.length === 0)
      lines.push('The script finished without printing or returning anything.')
  }
  else if (end.kind === 'error') {
    isError = true
    const memory = end.memory ? ` (the script's memory limit is ${formatBytes(context.memoryLimitBytes)})` : ''
    lines.push(`${end.name}: ${end.message}${memory}${end.line === undefined ? '' : ` (line ${end.line})`}`)
  }
  else {
    isError = true
    lines.push(end.reason === 1
      ? `the script was stopped by its time limit (${context.timeoutMs} ms).`
      : 'the script was stopped: the call was aborted.')
  }
  // An error result reaches the model as `Error: <text>`: the failure is named before what was printed.
  if (isError && lines.length > 1)
    lines.unshift('the script failed. What it printed first:')
  return { output: wellFormed(lines.join('\n')), isError }
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024)
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`
}

/** An unpaired surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Replace unpaired surrogates with U+FFFD, so the text is valid UTF-16 (and encodes to UTF-8) on every wire. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD')
}
