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
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done)
      break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      return undefined
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}
