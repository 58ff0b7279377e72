import { describe, expect, it } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { streamResponses } from '../../src/providers/openai/responses'
import { MAX_EVENT_STREAM_LINE_CHARS } from '../../src/providers/shared/event-stream'
import { responsesEvents } from '../support/openai-responses-sse'
import { sseFrame } from '../support/sse'
import { clientAnswering, recordCallbacks, rejectionOf, responsesOptions } from './openai-responses-fixtures'

// The Responses body is read by zidane's event-stream parser: a line of many MiB that arrives in small reads is
// read in linear time (the client's own line decoder joined and searched the whole pending buffer on every
// read), and a line past the cap fails the turn instead of growing without end.

const encoder = new TextEncoder()

/** `text` in reads of `size` bytes. */
function inReads(text: string, size: number): () => ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text)
  return () => {
    let at = 0
    return new ReadableStream({
      pull(controller) {
        if (at >= bytes.length) {
          controller.close()
          return
        }
        controller.enqueue(bytes.subarray(at, at + size))
        at += size
      },
    })
  }
}

describe('a Responses body with very long lines', () => {
  it('reads a tool call of 8 MiB sent in 1 KiB reads, in linear time', async () => {
    const content = 'z'.repeat(8 * 1024 * 1024)
    const frames = responsesEvents({ toolCalls: [{ name: 'write_file', callId: 'call_big', input: { path: 'a.txt', content } }] }).map(sseFrame).join('')
    const result = await streamResponses(clientAnswering(inReads(frames, 1024)), responsesOptions(), recordCallbacks().callbacks, { providerName: 'openai' })
    expect(result.toolCalls).toHaveLength(1)
    expect(result.toolCalls[0].input).toEqual({ path: 'a.txt', content })
  }, 60_000)

  it('fails the turn on a line past the cap, naming the provider, without reading further', async () => {
    const piece = encoder.encode('x'.repeat(256 * 1024))
    let sent = 0
    const endless = () => new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('event: response.output_text.delta\ndata: '))
      },
      pull(controller) {
        sent += piece.length
        controller.enqueue(piece)
      },
    })
    const error = await rejectionOf(streamResponses(clientAnswering(endless), responsesOptions(), recordCallbacks().callbacks, { providerName: 'openai' }))
    expect(error).toBeInstanceOf(ClassifiedError)
    expect(error).toMatchObject({ kind: 'server', retryable: false, provider: 'openai' })
    expect(sent).toBeLessThan(MAX_EVENT_STREAM_LINE_CHARS + 2 * piece.length)
  }, 60_000)

  it('a message that is not JSON is a retryable server error quoting it', async () => {
    const error = await rejectionOf(streamResponses(clientAnswering(inReads('data: <html>bad gateway</html>\n\n', 1024)), responsesOptions(), recordCallbacks().callbacks, { providerName: 'openai' }))
    expect(error).toMatchObject({ kind: 'server', retryable: true, provider: 'openai' })
    expect(error.message).toContain('<html>bad gateway')
  })
})
