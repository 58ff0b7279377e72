import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DoneWatch, watchDone } from '../../src/providers/openai-chat/stream-end'

const encoder = new TextEncoder()

/** Cut `bytes` at the given offsets (sorted, deduplicated, in range). */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map(offset => offset % (bytes.length + 1)))].sort((a, b) => a - b)
  const pieces: Uint8Array[] = []
  let start = 0
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.slice(start, point))
    start = point
  }
  return pieces
}

/** Text a model may write, the terminator's own spelling included: inside JSON it can never pass for the real one. */
const trickyText = fc.oneof(
  fc.string(),
  fc.constantFrom('data: [DONE]', '\ndata: [DONE]\n\n', 'data:[DONE]', '[DONE]', '\r\ndata: [DONE]'),
)

const body = fc.record({
  texts: fc.array(trickyText, { maxLength: 6 }),
  terminator: fc.constantFrom(undefined, 'data: [DONE]\n\n', 'data:[DONE]\n\n', 'data: [DONE]\r\n\r\n', 'data: [DONE]'),
  lineEnd: fc.constantFrom('\n', '\r\n'),
  offsets: fc.array(fc.nat(4000), { maxLength: 12 }),
})

describe('finding the [DONE] line', () => {
  it('sees it exactly when the body carries it, however the body is split, and never in chunk content', () => {
    fc.assert(fc.property(body, ({ texts, terminator, lineEnd, offsets }) => {
      const frames = texts.map(text => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}${lineEnd}${lineEnd}`)
      const bytes = encoder.encode(frames.join('') + (terminator ?? ''))
      const watch = new DoneWatch()
      for (const piece of cut(bytes, offsets))
        watch.push(piece)
      expect(watch.seen).toBe(terminator !== undefined)
    }), { numRuns: 400 })
  })

  it('sees a body that is nothing but the terminator, split one byte at a time', () => {
    const watch = new DoneWatch()
    for (const byte of encoder.encode('data: [DONE]\n\n'))
      watch.push(Uint8Array.of(byte))
    expect(watch.seen).toBe(true)
  })

  it('passes status, headers and every byte through unchanged', async () => {
    const text = 'data: {"choices":[]}\n\ndata: [DONE]\n\n'
    const original = new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_1' } })
    const watched = watchDone(original)
    expect(watched.sawDone()).toBe(false)
    expect(await watched.response.text()).toBe(text)
    expect(watched.response.headers.get('x-request-id')).toBe('req_1')
    expect(watched.response.status).toBe(200)
    expect(watched.sawDone()).toBe(true)
  })
})
