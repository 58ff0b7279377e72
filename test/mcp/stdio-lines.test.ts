/**
 * The reader of a stdio server's output (`stdio-answers.ts`): lines split
 * anywhere come out whole and in order, and a long line arriving in many
 * small pieces is read in linear time (the SDK's reader joined and searched
 * its whole buffer again on every piece).
 */

import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerMalformedResponses } from '../../src/mcp/stdio-answers'

interface LineReader {
  append: (chunk: Buffer) => void
  readMessage: () => unknown
}

/** The reader zidane puts on a stdio transport. */
function reader(): LineReader {
  const transport = { _readBuffer: {} }
  answerMalformedResponses(transport as unknown as StdioClientTransport, 's')
  return transport._readBuffer as unknown as LineReader
}

/** Everything readable now, as the SDK's transport drains it after each piece. */
function drain(lines: LineReader): unknown[] {
  const out: unknown[] = []
  for (let message = lines.readMessage(); message !== null; message = lines.readMessage())
    out.push(message)
  return out
}

describe('stdio lines', () => {
  it('gives back every message whole and in order, wherever the pieces are cut', () => {
    const message = fc.record({ jsonrpc: fc.constant('2.0' as const), method: fc.string({ maxLength: 20 }).map(name => `n/${name}`), params: fc.record({ text: fc.string({ unit: 'grapheme', maxLength: 40 }) }) })
    fc.assert(fc.property(fc.array(message, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (messages, cuts, crlf) => {
      const bytes = Buffer.from(messages.map(m => `${JSON.stringify(m)}${crlf ? '\r\n' : '\n'}`).join(''))
      const points = [...new Set(cuts.map(cut => cut % (bytes.length + 1)))].sort((a, b) => a - b)
      const lines = reader()
      const read: unknown[] = []
      let from = 0
      for (const point of [...points, bytes.length]) {
        lines.append(bytes.subarray(from, point))
        read.push(...drain(lines))
        from = point
      }
      expect(read).toEqual(messages)
    }), { numRuns: 200 })
  })

  it('reads a line of 8 MiB sent in 256-byte pieces in one pass', () => {
    const text = 'x'.repeat(8 * 1024 * 1024)
    const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'n/big', params: { text } })}\n`)
    const lines = reader()
    const read: unknown[] = []
    // 33,000 pieces: joined and searched again on each, as before, this was about 140 GB of copying.
    for (let from = 0; from < bytes.length; from += 256) {
      lines.append(bytes.subarray(from, from + 256))
      read.push(...drain(lines))
    }
    expect(read).toHaveLength(1)
    expect((read[0] as { params: { text: string } }).params.text.length).toBe(text.length)
  })

  it('refuses a line past the SDK\'s 10 MiB cap, and reads the next one', () => {
    const lines = reader()
    expect(() => {
      for (let i = 0; i < 11; i++)
        lines.append(Buffer.alloc(1024 * 1024, 0x78))
    }).toThrow(/exceeded maximum size/)
    lines.append(Buffer.from('{"jsonrpc":"2.0","method":"n/after"}\n'))
    expect(drain(lines)).toEqual([{ jsonrpc: '2.0', method: 'n/after' }])
  })
})
