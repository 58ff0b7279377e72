import type { ToolResultBlock } from '../../src/core/content'
import type { McpConnection, McpServerConfig } from '../../src/mcp'
import type { OversizedServer } from './oversized-server'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { OperationTimeoutError } from '../../src/errors'
import { connectMcpServers, DEFAULT_MAX_RESPONSE_BYTES, McpResponseTooLargeError } from '../../src/mcp'
import { capResponse, EVENT_STREAM_PIECE_BYTES } from '../../src/mcp/capped-response'
import { scriptedProvider } from '../../src/testing'
import { startOversizedServer } from './oversized-server'
import { toolContext } from './support'

// A remote server's answer is counted while it streams in and cut at
// `maxResponseBytes` (one answer, or one event of an event stream): the call
// fails with an error naming the server and the cap, the host's
// `onServerError` hears of it, and the session goes on.

const MiB = 1024 * 1024

let server: OversizedServer
let connections: McpConnection[] = []

beforeEach(async () => {
  server = await startOversizedServer()
})

afterEach(async () => {
  await Promise.all(connections.map(connection => connection.close()))
  connections = []
  await server.close()
})

async function connect(config: Partial<McpServerConfig> & { transport: 'sse' | 'streamable-http' }) {
  const errors: Error[] = []
  const url = config.transport === 'sse' ? `${server.origin}/sse` : `${server.origin}/mcp`
  // toolTimeout is far above what a cut takes, and low enough that a client that reads on fails before it runs out of heap.
  const mcp = await connectMcpServers([{ name: 'big', url, toolTimeout: 6_000, ...config }], { onServerError: (_name, error) => errors.push(error) })
  connections.push(mcp)
  expect(mcp.servers[0].status).toBe('connected')
  return { mcp, errors }
}

async function call(mcp: McpConnection, tool: string, args: Record<string, unknown> = {}): Promise<unknown> {
  return Promise.resolve(mcp.tools[`mcp__big__${tool}`].execute(args, toolContext())).catch((error: unknown) => error)
}

function expectCapError(error: unknown, cap: string, part: 'response body' | 'one event of an event stream'): void {
  expect(error).toBeInstanceOf(Error)
  expect(error).not.toBeInstanceOf(OperationTimeoutError)
  expect((error as Error).message).toContain('MCP server "big"')
  expect((error as Error).message).toContain(`larger than ${cap} (maxResponseBytes)`)
  expect((error as Error).message).toContain(part)
  expect((error as Error).message).toContain('Raise maxResponseBytes')
}

describe('streamable-http answers over maxResponseBytes', () => {
  it('cuts a 64 MiB JSON answer at the default 10 MiB, fails that call, and keeps the session', async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(10 * MiB)
    const { mcp, errors } = await connect({ transport: 'streamable-http' })
    const started = Date.now()
    const error = await call(mcp, 'big_json', { bytes: 64 * MiB })
    expect(error).toBeInstanceOf(McpResponseTooLargeError)
    expectCapError(error, '10 MiB', 'response body')
    expect(Date.now() - started).toBeLessThan(5000)
    // The read stopped near the cap: the server did not get to write the rest.
    expect(server.sent).toBeLessThan(24 * MiB)
    await expect.poll(() => server.aborted).toBe(1)
    expect(errors).toEqual([error])
    expect(await call(mcp, 'small')).toBe('small ok')
    expect(mcp.servers[0].status).toBe('connected')
  })

  it('fails the call with the cap when an error status comes with a body over it', async () => {
    const { mcp, errors } = await connect({ transport: 'streamable-http' })
    const error = await call(mcp, 'big_error', { bytes: 64 * MiB })
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain('larger than 10 MiB (maxResponseBytes)')
    expect(server.sent).toBeLessThan(24 * MiB)
    expect(errors).toHaveLength(1)
    expect(await call(mcp, 'small')).toBe('small ok')
  })

  it('fails the call at once when one event of its event stream never ends', async () => {
    const { mcp, errors } = await connect({ transport: 'streamable-http' })
    const started = Date.now()
    const error = await call(mcp, 'endless_event')
    expectCapError(error, '10 MiB', 'one event of an event stream')
    // Well before toolTimeout (6 s): the call does not wait for an answer that cannot come.
    expect(Date.now() - started).toBeLessThan(5000)
    expect(server.sent).toBeLessThan(24 * MiB)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(McpResponseTooLargeError)
    expect(errors[0]).toMatchObject({ server: 'big', maxBytes: 10 * MiB, part: 'event' })
    expect(await call(mcp, 'small')).toBe('small ok')
  })

  it('caps each event, not the stream: many events under the cap add up past it', async () => {
    const { mcp, errors } = await connect({ transport: 'streamable-http', maxResponseBytes: MiB })
    expect(await call(mcp, 'many_events', { bytes: MiB / 2, count: 8 })).toBe('after many events')
    expect(errors).toEqual([])
  })

  it('refuses an answer whose content-length is over the cap before reading it, and survives one that lies short', async () => {
    const { mcp, errors } = await connect({ transport: 'streamable-http' })
    const started = Date.now()
    const refused = await call(mcp, 'lying_long')
    expect(refused).toBeInstanceOf(McpResponseTooLargeError)
    expect((refused as Error).message).toContain(`announced a response body of ${64 * 1024 ** 3} bytes (content-length), over 10 MiB (maxResponseBytes)`)
    expect(Date.now() - started).toBeLessThan(5000)
    expect(errors).toEqual([refused])
    // Declared 100 bytes, sent 32 MiB: fetch stops at the declared length, and the call fails on that much.
    const short = await call(mcp, 'lying_short', { bytes: 32 * MiB })
    expect(short).toBeInstanceOf(SyntaxError)
    expect(await call(mcp, 'small')).toBe('small ok')
  })

  it('maxResponseBytes lowers and raises the cap', async () => {
    const low = await connect({ transport: 'streamable-http', maxResponseBytes: MiB })
    const error = await call(low.mcp, 'big_json', { bytes: 2 * MiB })
    expectCapError(error, '1 MiB', 'response body')
    expect(low.errors).toEqual([error])

    const high = await connect({ transport: 'streamable-http', maxResponseBytes: 20 * MiB })
    const text = await call(high.mcp, 'big_json', { bytes: 12 * MiB })
    expect(typeof text === 'string' && text.length).toBe(12 * MiB)
    expect(high.errors).toEqual([])
  })

  it('refuses a maxResponseBytes that is not a positive whole number before connecting', async () => {
    for (const maxResponseBytes of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(connectMcpServers([{ name: 'big', transport: 'streamable-http', url: `${server.origin}/mcp`, maxResponseBytes }]))
        .rejects
        .toThrow(/maxResponseBytes must be a positive whole number/)
    }
  })
})

describe('legacy sse answers over maxResponseBytes', () => {
  it('fails the call in flight with the cap, closes the session, and tells onServerError', async () => {
    const { mcp, errors } = await connect({ transport: 'sse', maxResponseBytes: 2 * MiB })
    const started = Date.now()
    const error = await call(mcp, 'endless_event')
    expectCapError(error, '2 MiB', 'one event of an event stream')
    expect(Date.now() - started).toBeLessThan(5000)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ name: 'McpResponseTooLargeError', part: 'event', maxBytes: 2 * MiB })
    // The stream was the session: it is gone, as a stdio server's is past the SDK's cap.
    expect(mcp.servers[0].status).toBe('closed')
    expect(await call(mcp, 'small')).toBeInstanceOf(Error)
  })

  it('reads answers under the cap as before', async () => {
    const { mcp, errors } = await connect({ transport: 'sse', maxResponseBytes: 2 * MiB })
    const text = await call(mcp, 'big_json', { bytes: MiB })
    expect(typeof text === 'string' && text.length).toBe(MiB)
    expect(await call(mcp, 'small')).toBe('small ok')
    expect(errors).toEqual([])
  })
})

describe('in an agent run', () => {
  it('pairs the call with an error result naming the cap, and the run goes on', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'call_big', name: 'mcp_big_endless_event', input: {} }] },
      { toolCalls: [{ id: 'call_small', name: 'mcp_big_small', input: {} }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, mcpServers: [{ name: 'big', transport: 'streamable-http', url: `${server.origin}/mcp`, maxResponseBytes: MiB, toolTimeout: 6_000 }] })
    try {
      const stats = await agent.run({ prompt: 'go' })
      expect(stats.stopReason).toBe('completed')
      expect(stats.text).toBe('done')
      const results = provider.requests.flatMap(request => request.messages.flatMap(message => message.content))
        .filter((block): block is ToolResultBlock => block.type === 'tool_result')
      const big = results.find(result => result.callId === 'call_big')!
      expect(big.isError).toBe(true)
      expect(JSON.stringify(big.output)).toContain('larger than 1 MiB (maxResponseBytes)')
      expect(results.find(result => result.callId === 'call_small')).toMatchObject({ output: 'small ok' })
    }
    finally {
      await agent.destroy()
    }
  })
})

describe('capResponse', () => {
  function eventStream(chunks: string[]): Response {
    const encoder = new TextEncoder()
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks)
          controller.enqueue(encoder.encode(chunk))
        controller.close()
      },
    })
    return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
  }

  async function read(chunks: string[], maxBytes: number): Promise<string | Error> {
    const capped = await capResponse(eventStream(chunks), { server: 's', maxBytes })
    return capped.text().catch((error: Error) => error)
  }

  it('ends an event at a blank line made of LF, CR or CRLF, even when split across chunks', async () => {
    // Each event is 9 or 10 bytes with its line ends, 49 in all; none is over 12.
    expect(await read(['data: 12\n\n', 'data: 12\r\r', 'data: 12\r', '\n\r\n', 'data: 1\r\n\r\n', 'data: 1\r\n', '\r\n'], 12)).toBeTypeOf('string')
    // A CR then an LF in the next chunk is one line end, not a blank line: the event goes on (9 + 9 bytes).
    expect(await read(['data: 1\r', '\ndata: 2\r\n'], 12)).toBeInstanceOf(McpResponseTooLargeError)
  })

  it('allows an event of exactly the cap, and not one byte more', async () => {
    // Counted: the event's lines and their line ends, not the blank line that ends it.
    expect(await read(['data: 12345\n\n', 'data: 12345\n\n'], 12)).toBeTypeOf('string')
    expect(await read(['data: 123456\n\n'], 12)).toBeInstanceOf(McpResponseTooLargeError)
  })

  it('hands an event stream on in pieces of at most 4 KiB, byte for byte, and any other body as it came', async () => {
    // The SDK's event parser costs the square of the piece it is given when the lines end in bare CRs.
    const chunk = '\r'.repeat(64 * 1024 + 5)
    const pieces: Uint8Array[] = []
    const reader = (await capResponse(eventStream([chunk]), { server: 's', maxBytes: 1024 })).body!.getReader()
    for (let next = await reader.read(); !next.done; next = await reader.read())
      pieces.push(next.value)
    expect(pieces).toHaveLength(17)
    expect(Math.max(...pieces.map(piece => piece.byteLength))).toBe(EVENT_STREAM_PIECE_BYTES)
    expect(new TextDecoder().decode(Buffer.concat(pieces))).toBe(chunk)

    const json = new Response(JSON.stringify({ text: 'x'.repeat(64 * 1024) }), { headers: { 'content-type': 'application/json' } })
    const whole: Uint8Array[] = []
    const jsonReader = (await capResponse(json, { server: 's', maxBytes: 1024 * 1024 })).body!.getReader()
    for (let next = await jsonReader.read(); !next.done; next = await jsonReader.read())
      whole.push(next.value)
    expect(whole).toHaveLength(1)
  })

  it('keeps where the response came from', async () => {
    const original = await fetch(`${server.origin}/mcp`)
    const capped = await capResponse(original, { server: 's', maxBytes: 10 })
    expect(capped.url).toBe(original.url)
    expect(capped.redirected).toBe(false)
    expect(capped.status).toBe(405)
  })
})
