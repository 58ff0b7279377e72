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
  const { text, over } = await readTextPrefix(response, maxBytes)
  return over ? undefined : text
}

/**
 * The first `maxBytes` of a response body as UTF-8 text, and whether bytes
 * were left (`over`); the body is cancelled after the cut, so the rest is
 * never downloaded. A character the cut split is left out rather than
 * decoded as U+FFFD. For when the start of an oversized answer is still of
 * use (an error page's excerpt, say).
 */
export async function readTextPrefix(response: Response, maxBytes: number): Promise<{ text: string, over: boolean }> {
  const reader = response.body?.getReader()
  if (!reader)
    return { text: '', over: false }
  const chunks: Uint8Array[] = []
  let size = 0
  let over = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done)
        break
      if (size + value.byteLength > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size))
        size = maxBytes
        over = true
        break
      }
      chunks.push(value)
      size += value.byteLength
    }
  }
  finally {
    reader.cancel().catch(() => {})
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks, size), { stream: over }), over }
}
