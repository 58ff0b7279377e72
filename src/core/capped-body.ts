/**
 * A response body as UTF-8 text, or `undefined` once it is known to be larger
 * than `maxBytes`: a declared `content-length` over the cap refuses it before
 * any byte is read, and otherwise reading stops (and the body is cancelled)
 * at the first chunk that crosses it. For answers from servers zidane does not
 * control (token endpoints, identity providers), so their size is bounded
 * before the work of parsing them starts.
 */
export async function readTextCapped(response: Response, maxBytes: number): Promise<string | undefined> {
  if (!response.body)
    return ''
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body.cancel().catch(() => {})
    return undefined
  }
  // Over the cap, the bytes read so far are dropped undecoded.
  const prefix = await readBytesPrefix(response, maxBytes)
  return prefix.over ? undefined : decodePrefix(prefix)
}

/**
 * The first `maxBytes` of a response body as UTF-8 text, and whether bytes
 * were left (`over`); the body is cancelled after the cut, so the rest is
 * never downloaded. A character the cut split is left out rather than
 * decoded as U+FFFD. For when the start of an oversized answer is still of
 * use (an error page's excerpt, say).
 */
export async function readTextPrefix(response: Response, maxBytes: number): Promise<{ text: string, over: boolean }> {
  const prefix = await readBytesPrefix(response, maxBytes)
  return { text: decodePrefix(prefix), over: prefix.over }
}

interface BytesPrefix {
  chunks: Uint8Array[]
  size: number
  over: boolean
}

/** The first `maxBytes` of a body as the chunks that came, and whether bytes were left; the body is cancelled after. */
async function readBytesPrefix(response: Response, maxBytes: number): Promise<BytesPrefix> {
  const reader = response.body?.getReader()
  const prefix: BytesPrefix = { chunks: [], size: 0, over: false }
  if (!reader)
    return prefix
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done)
        break
      if (prefix.size + value.byteLength > maxBytes) {
        prefix.chunks.push(value.subarray(0, maxBytes - prefix.size))
        prefix.size = maxBytes
        prefix.over = true
        break
      }
      prefix.chunks.push(value)
      prefix.size += value.byteLength
    }
  }
  finally {
    reader.cancel().catch(() => {})
  }
  return prefix
}

/** The prefix as text; a character its cut split is left out. */
function decodePrefix(prefix: BytesPrefix): string {
  return new TextDecoder().decode(Buffer.concat(prefix.chunks, prefix.size), { stream: prefix.over })
}
