import type { McpConnection } from '../../src/mcp'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { connectMcpServers, MAX_MCP_RESULT_DEPTH } from '../../src/mcp'
import { createFileStore, createSession, loadSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { toolContext } from './support'

// A server's `tools/call` results are outside bytes: whatever it sends, the call ends with a result or an error
// the model can read, in bounded time and memory, and the session that records it stays loadable.

const HOSTILE_ENTRY = fileURLToPath(new URL('./fixtures/hostile-result-server.mjs', import.meta.url))
const WEIRD_TEXT = 'lone \uD800 high, lone \uDC00 low, nul \u0000 here, esc \u001B[31mred\u001B[0m, bell \u0007, bidi \u202E, sep \u2028 end'

// Generous: the widest results take seconds on a loaded two-core machine; a quadratic read would take hours.
function hostileServer(toolTimeout = 25_000) {
  return { name: 'h', transport: 'stdio' as const, command: process.execPath, args: [HOSTILE_ENTRY], toolTimeout }
}

describe('a server whose tools/call results are hostile, through the MCP API', () => {
  let mcp: McpConnection
  beforeAll(async () => {
    mcp = await connectMcpServers([hostileServer()])
  })
  afterAll(async () => {
    await mcp.close()
  })
  const call = (tool: string, input: Record<string, unknown> = {}) => mcp.tools[`mcp__h__${tool}`].execute(input, toolContext())
  const failure = async (tool: string, input: Record<string, unknown> = {}) => {
    const error = await Promise.resolve(call(tool, input)).then(() => undefined, (error: unknown) => error)
    expect(error).toBeInstanceOf(Error)
    return error as Error
  }

  it('keeps text with lone surrogates, NUL and escape sequences as it came', async () => {
    expect(await call('weird')).toBe(WEIRD_TEXT)
  })

  it('refuses structuredContent nested thousands of levels deep with an error naming the cap, before writing it as JSON', async () => {
    const error = await failure('deep', { depth: 100_000 })
    expect(error).toBeInstanceOf(TypeError)
    expect(error.message).toBe(`MCP tool result: structuredContent nests more than ${MAX_MCP_RESULT_DEPTH} levels deep; it was not read`)
    // Beside text, structuredContent is not read at all.
    expect(await call('deep', { depth: 100_000, text: true })).toBe('see structured')
    expect(await call('ping')).toBe('pong')
  })

  it('writes structuredContent with 500,000 keys as JSON text, in linear time', async () => {
    const output = await call('wide', { keys: 500_000 }) as string
    expect(output.startsWith('{"k0":0,"k1":1,')).toBe(true)
    expect(output.endsWith('"k499999":499999}')).toBe(true)
  }, 30_000)

  it('turns a result that breaks the MCP schema into an error naming the problem', async () => {
    expect((await failure('notarray')).message).toBe('MCP server "h" answered tools/call of "notarray" with a result that does not match the MCP schema (1 problem): content: Invalid input: expected array, received string')
    expect((await failure('stringerror')).message).toBe('MCP server "h" answered tools/call of "stringerror" with a result that does not match the MCP schema (1 problem): isError: Invalid input: expected boolean, received string')
    expect((await failure('media', { which: 'badBase64Image' })).message).toContain('(1 problem): content.0.data: Invalid Base64 string')
    expect((await failure('media', { which: 'badBase64Blob' })).message).toContain('(1 problem): content.0.resource.blob: Invalid Base64 string')
    expect((await failure('media', { which: 'unknownType' })).message).toContain('(1 problem): content.0: Invalid input')
    expect(await call('ping')).toBe('pong')
  })

  it('answers 50,000 blocks of an unknown type with a short error, not the schema error\'s message of hundreds of megabytes', async () => {
    const error = await failure('many', { count: 50_000, type: 'unknown' })
    expect(error.message.length).toBeLessThan(1_000)
    expect(error.message).toContain('(50000 problems): content.0: Invalid input; content.1: Invalid input;')
    expect(error.message).toMatch(/; and 49995 more$/)
  }, 30_000)

  it('passes media of a type that is not an image through as it came (each wire turns it into a note)', async () => {
    expect(await call('media', { which: 'htmlImage' })).toEqual([{ type: 'image', data: 'PGgxPmhpPC9oMT4=', mediaType: 'text/html' }])
    expect(await call('media', { which: 'exeAudio' })).toEqual([{ type: 'audio', data: 'TVqQAAMAAAAEAAAA', mediaType: 'application/x-msdownload' }])
  })

  it('keeps 200,000 content blocks, joined as text', async () => {
    const output = await call('many', { count: 200_000 }) as string
    expect(output.length).toBe(399_999)
  }, 30_000)
})

describe('an agent calling a hostile server', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zidane-hostile-mcp-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  /** One turn of `calls` against the hostile server, then `done`; the stats and the results as reloaded from the file store. */
  async function runCalls(calls: { tool: string, input?: Record<string, unknown> }[], toolTimeout?: number) {
    const store = createFileStore({ dir })
    const session = await createSession({ store })
    const provider = scriptedProvider([{ toolCalls: calls.map(c => ({ name: `mcp_h_${c.tool}`, input: c.input ?? {} })) }, { text: 'done' }])
    const agent = createAgent({ provider, session, mcpServers: [hostileServer(toolTimeout)] })
    try {
      const stats = await agent.run({ prompt: 'go' })
      const loaded = await loadSession(session.id, { store })
      const blocks = loaded.turns.flatMap(turn => turn.content)
      const ids = blocks.filter(block => block.type === 'tool_call').map(block => (block as { id: string }).id)
      const results = blocks.filter(block => block.type === 'tool_result') as { callId: string, isError?: boolean, output: unknown }[]
      expect(results.map(result => result.callId)).toEqual(ids)
      return { stats, results, provider }
    }
    finally {
      await agent.destroy()
    }
  }

  it('records schema-breaking, over-deep and odd-text results as results of their calls, and the session reloads', async () => {
    const { stats, results } = await runCalls([
      { tool: 'weird' },
      { tool: 'notarray' },
      { tool: 'stringerror' },
      { tool: 'deep', input: { depth: 100_000 } },
      { tool: 'many', input: { count: 200_000, type: 'unknown' } },
      { tool: 'ping' },
    ])
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('done')
    expect(results[0]).toMatchObject({ output: WEIRD_TEXT })
    expect(results[0].isError).toBeFalsy()
    for (const result of results.slice(1, 5)) {
      expect(result.isError).toBe(true)
      expect((result.output as string).length).toBeLessThan(1_000)
    }
    expect(results[4].output).toContain('(200000 problems)')
    expect(results[5]).toMatchObject({ output: 'pong' })
  }, 60_000)

  it('answers a message past the stdio transport\'s 10 MiB cap with an error result, and the run goes on', async () => {
    const { stats, results } = await runCalls([{ tool: 'huge', input: { chars: 50_000_000 } }])
    expect(stats.stopReason).toBe('completed')
    expect(results[0].isError).toBe(true)
    expect(results[0].output).toBe('Error: MCP error -32000: Connection closed')
  }, 60_000)

  it('bounds a call the server never answers by toolTimeout, paired with an error result', async () => {
    const started = Date.now()
    const { stats, results } = await runCalls([{ tool: 'hang' }, { tool: 'ping' }], 500)
    expect(stats.stopReason).toBe('completed')
    expect(results[0]).toMatchObject({ isError: true, output: 'Error: MCP tool h/hang did not settle within 500 ms' })
    expect(results[1]).toMatchObject({ output: 'pong' })
    expect(Date.now() - started).toBeLessThan(10_000)
  }, 30_000)
})
