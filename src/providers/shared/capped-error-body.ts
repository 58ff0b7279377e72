/**
 * The `fetch` every vendor SDK client of zidane is built with: requests go
 * out through `transportFetch` (`http-transport.ts`), and the body of an
 * answer with an error status is cut at `MAX_ERROR_BODY_BYTES`.
 *
 * Why: on an error status the SDK reads the whole body (`response.text()`)
 * to build its error, before zidane is handed anything. A server that sends
 * such a body without end (a broken proxy, a hostile endpoint) would grow
 * the process's memory until it dies. The SDK now reads the bytes before the
 * cut and a line saying where it was made; the rest is never read and the
 * connection is let go. A success body passes untouched: zidane reads those
 * itself, under its own caps (`event-stream.ts`).
 *
 * The SDKs also write the error object they parse out of such a body with
 * `JSON.stringify`, which overflows the stack on one nested thousands of
 * levels deep (256 KiB holds 40,000 levels): the turn failed with
 * `Maximum call stack size exceeded`, untyped and not retried, its status and
 * `retry-after` lost. So the cut body is read here (the SDK reads it whole
 * anyway) and, when it is JSON nested past `MAX_TOOL_INPUT_DEPTH`, the SDK
 * gets only its error's `type`, `code` and `message` when those are strings.
 */

import { nestsDeeperThan } from '../../core/json-depth'
import { MAX_TOOL_INPUT_DEPTH } from '../tool-json'
import { transportFetch } from './http-transport'

/**
 * Most bytes of an error answer's body the SDK gets to read (256 KiB): far
 * above a real API error (a JSON object of a few hundred bytes) or a gateway's
 * HTML error page.
 */
export const MAX_ERROR_BODY_BYTES = 256 * 1024

/** `transportFetch`, with error bodies cut at `MAX_ERROR_BODY_BYTES`. */
export async function fetchWithCappedErrorBodies(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await transportFetch(input, init)
  if (response.ok || response.body === null)
    return response
  // A body that fails half-way reads as the failure's message, as the SDKs read it: the status still classifies the error.
  const text = await new Response(cutAfter(response.body, MAX_ERROR_BODY_BYTES)).text().catch((error: unknown) => error instanceof Error ? error.message : String(error))
  const capped = new Response(shallowErrorBody(text), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
  // The SDKs name the URL in their logs; a constructed Response has none of its own.
  Object.defineProperty(capped, 'url', { value: response.url })
  return capped
}

const encoder = new TextEncoder()

/** The keys of an error object kept from a body nested too deep: what the classifiers read. */
const KEPT_ERROR_FIELDS = ['type', 'code', 'param', 'message'] as const

/**
 * `text` itself, unless it is JSON nested past `MAX_TOOL_INPUT_DEPTH`: then
 * the same shape (`{ type?, error: { type?, code?, param?, message } }`)
 * with only the string fields that classify the error.
 */
function shallowErrorBody(text: string): string {
  let value: unknown
  try {
    value = JSON.parse(text)
  }
  catch {
    return text
  }
  if (!nestsDeeperThan(value, MAX_TOOL_INPUT_DEPTH))
    return text
  const top = fieldsOf(value)
  const inner = fieldsOf(top.error)
  const error: Record<string, string> = {}
  for (const key of KEPT_ERROR_FIELDS) {
    if (typeof inner[key] === 'string')
      error[key] = inner[key]
  }
  error.message ??= `the error body was nested more than ${MAX_TOOL_INPUT_DEPTH} levels deep; only its type and code were kept`
  return JSON.stringify(typeof top.type === 'string' ? { type: top.type, error } : { error })
}

function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}
}

/** `body` up to `maxBytes`, then a line naming the cut; the source is cancelled there. */
function cutAfter(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let left = maxBytes
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = await reader.read()
      if (read.done) {
        controller.close()
        return
      }
      if (read.value.length <= left) {
        left -= read.value.length
        controller.enqueue(read.value)
        return
      }
      controller.enqueue(read.value.subarray(0, left))
      controller.enqueue(encoder.encode(`\n[the error body was cut here, at ${maxBytes / 1024} KiB; the rest was not read]`))
      controller.close()
      reader.cancel().catch(() => {})
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
}
