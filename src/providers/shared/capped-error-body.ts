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
 */

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
  const capped = new Response(cutAfter(response.body, MAX_ERROR_BODY_BYTES), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
  // The SDKs name the URL in their logs; a constructed Response has none of its own.
  Object.defineProperty(capped, 'url', { value: response.url })
  return capped
}

const encoder = new TextEncoder()

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
