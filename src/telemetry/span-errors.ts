/**
 * How a failure is written on a span: `error.type`, the status `ERROR` with
 * the error's message, and an `exception` event. The thrown value comes from
 * a tool, a provider or a hook, so it is read like any value from outside:
 * its message, name and stack may be megabytes (an MCP server's error text, a
 * tool echoing a file), and reading them may throw (a getter, a proxy). A
 * span keeps at most `SPAN_ERROR_MESSAGE_MAX_CHARS` of the message and
 * `SPAN_ERROR_STACK_MAX_CHARS` of the stack, and nothing here throws: a
 * throw would replace the run's own error with telemetry's, and leave the
 * span looking as if it had succeeded.
 */

import type { Span } from '@opentelemetry/api'
import type { TelemetryRuntime } from './runtime'
import { ClassifiedError } from '../errors'
import { errorMessage } from '../loop/call-answer'
import { truncateText } from '../text/truncate'
import { ERROR_TYPE } from './conventions'

/** The most of an error's message a span's status and exception event hold (UTF-16 units). */
export const SPAN_ERROR_MESSAGE_MAX_CHARS = 1024

/** The most of an error's stack an exception event holds (UTF-16 units). */
export const SPAN_ERROR_STACK_MAX_CHARS = 8192

/** The class of error an operation ended with, for `error.type`: a provider error's kind, else the error's name; `_OTHER` when neither can be read. */
export function errorType(error: unknown): string {
  try {
    if (error instanceof ClassifiedError)
      return error.kind
    const kind = (error as { kind?: unknown } | null)?.kind
    if (typeof kind === 'string' && kind.length > 0 && kind.length <= 64)
      return kind
    if (error instanceof Error)
      return cut(String(error.name || 'Error'), 64)
  }
  catch {}
  return '_OTHER'
}

/** Mark a span failed: `error.type`, status `ERROR` with the message, and the `exception` event, each read safely and cut. */
export function failSpan(runtime: TelemetryRuntime, span: Span, error: unknown): void {
  const type = errorType(error)
  const message = cut(errorMessage(error), SPAN_ERROR_MESSAGE_MAX_CHARS)
  span.setAttribute(ERROR_TYPE, type)
  span.setStatus({ code: runtime.api.SpanStatusCode.ERROR, message })
  const stack = readString(() => error instanceof Error ? error.stack : undefined)
  span.addEvent('exception', stack === undefined
    ? { 'exception.type': type, 'exception.message': message }
    : { 'exception.type': type, 'exception.message': message, 'exception.stacktrace': cut(stack, SPAN_ERROR_STACK_MAX_CHARS) })
}

/** What `read` returns when it is a string; `undefined` when it is not or reading throws. */
function readString(read: () => unknown): string | undefined {
  try {
    const value = read()
    return typeof value === 'string' ? value : undefined
  }
  catch {
    return undefined
  }
}

/** `text` cut to `max` UTF-16 units on a code point boundary, with `…` when cut. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${truncateText(text, max - 1)}…`
}
