/**
 * `--json`: each `agent.stream()` event as one line of JSON, for scripts and
 * other programs. Errors inside events (a retry's, a fallback's) become
 * `{ name, message, code? }`, which `JSON.stringify` would otherwise print as
 * `{}`. A run that throws ends with one line of the CLI's own:
 * `{ "type": "error", "error": { … }, "exitCode": n }`.
 */

import type { AgentStreamEvent } from '../agent/stream-events'

/** An error as JSON: its name, message and, when it has one, its `code`. */
export function errorJson(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error))
    return { name: 'Error', message: String(error) }
  const code = (error as { code?: unknown }).code
  return { name: error.name, message: error.message, ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}) }
}

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error)
    return errorJson(value)
  if (typeof value === 'bigint')
    return value.toString()
  return value
}

/** One event as a line of JSON (newline included). */
export function eventLine(event: AgentStreamEvent): string {
  return `${JSON.stringify(event, replacer)}\n`
}

/** The line a `--json` run that threw ends with. */
export function errorLine(error: unknown, exitCode: number): string {
  return `${JSON.stringify({ type: 'error', error: errorJson(error), exitCode })}\n`
}
