import type { AddressInfo } from 'node:net'
import type { McpServerConfig } from '../../src/mcp'
import type { ToolResultBlock } from '../../src/types'
import type { ProgramEnd } from '../support/child-runs'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import {
  connectMcpServers,
  MAX_MCP_CURSOR_CHARS,
  MAX_MCP_DESCRIPTION_CHARS,
  MAX_MCP_LIST_PAGES,
  MAX_MCP_SCHEMA_CHARS,
  MAX_MCP_STDIN_BACKLOG_WRITES,
  MAX_SCHEMA_CHECK_STEPS,
  MIN_MCP_EVENT_STREAM_INTERVAL_MS,
} from '../../src/mcp'
import { scriptedProvider } from '../../src/testing'
import { runUntilExit } from '../support/child-runs'
import { blocksOfType } from '../support/helpers'
import { isAlive, toolContext } from './support'

// Servers that attack the host through what it does with their bytes: schemas that take exponential time to
// check, listings that never end, tools that fill every request, input they never read, and a wrapper process
// whose server outlives it. Each is met in bounded time and memory, reported, and the host goes on (or exits).

const HOSTILE_SERVER = fileURLToPath(new URL('./fixtures/hostile-server.mjs', import.meta.url))
const WRAPPED_HOST = fileURLToPath(new URL('./fixtures/wrapped-server-host.ts', import.meta.url))

function hostileServer(mode: string, n = 0, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name: 'h', transport: 'stdio', command: process.execPath, args: [HOSTILE_SERVER], env: { MODE: mode, N: String(n) }, ...extra }
}

/** Connect to one hostile server; its tools and every error reported, as `name: message`. */
async function connect(mode: string, n = 0, extra: Partial<McpServerConfig> = {}) {
  const errors: Error[] = []
  const mcp = await connectMcpServers([hostileServer(mode, n, extra)], { onServerError: (_, error) => errors.push(error) })
  return { mcp, messages: () => errors.map(error => `${error.name}: ${error.message}`) }
}

/** One agent run calling `calls` on the hostile server, then `ok`: each result and how long the run took. */
async function runCalling(mode: string, n: number, calls: { name: string, input: Record<string, unknown> }[]) {
  const provider = scriptedProvider([{ toolCalls: calls }, { toolCalls: [{ name: 'mcp_h_ok', input: {} }] }, { text: 'done' }])
  const agent = createAgent({ provider, mcpServers: [hostileServer(mode, n)] })
  try {
    const started = Date.now()
    const stats = await agent.run({ prompt: 'go' })
    const elapsedMs = Date.now() - started
    const results = provider.requests.slice(1).map(request => (blocksOfType(request.messages, 'tool_result') as ToolResultBlock[]).at(-1))
    return { stopReason: stats.stopReason, elapsedMs, results: results.map(result => ({ output: String(result?.output), isError: result?.isError === true })) }
  }
  finally {
    await agent.destroy()
  }
}

describe('a server whose schema is a small graph of branching references', () => {
  // 22 levels: 2^23 steps unbounded, tens of seconds of a frozen process; the bound stops it well before.
  const levels = 22

  it('gets its structured content refused as not checkable, at once, and the run goes on', async () => {
    const { stopReason, elapsedMs, results } = await runCalling('branching-output', levels, [{ name: 'mcp_h_branching', input: {} }])
    expect(stopReason).toBe('completed')
    expect(elapsedMs).toBeLessThan(5_000)
    expect(results[0].isError).toBe(true)
    expect(results[0].output).toContain(`took more than ${MAX_SCHEMA_CHECK_STEPS} steps`)
    expect(results[1]).toEqual({ output: 'ok', isError: false })
  }, 60_000)

  it('gets a call to its tool refused as not checkable, at once, even with arguments that fit', async () => {
    const { stopReason, elapsedMs, results } = await runCalling('branching-input', levels, [{ name: 'mcp_h_branching', input: { v: 1 } }])
    expect(stopReason).toBe('completed')
    expect(elapsedMs).toBeLessThan(5_000)
    expect(results[0].isError).toBe(true)
    expect(results[0].output).toContain(`the input schema could not be checked`)
    expect(results[0].output).toContain(`took more than ${MAX_SCHEMA_CHECK_STEPS} steps`)
    expect(results[1]).toEqual({ output: 'ok', isError: false })
  }, 60_000)
})

describe('a server whose tools/list never ends', () => {
  it('stops after MAX_MCP_LIST_PAGES empty pages, keeping the tools listed before', async () => {
    const { mcp, messages } = await connect('empty-pages', 16, { bootstrapTimeout: 20_000 })
    try {
      expect(mcp.servers[0].status).toBe('connected')
      expect(Object.keys(mcp.tools)).toEqual(['mcp__h__ok'])
      expect(messages()).toEqual([`TypeError: MCP server "h" answered tools/list with more than ${MAX_MCP_LIST_PAGES} pages; the listing stops there`])
    }
    finally {
      await mcp.close()
    }
  }, 30_000)

  it('stops at a cursor of a megabyte rather than keep it', async () => {
    const { mcp, messages } = await connect('empty-pages', 1_000_000)
    try {
      expect(mcp.servers[0].status).toBe('connected')
      expect(Object.keys(mcp.tools)).toEqual(['mcp__h__ok'])
      expect(messages()).toEqual([`TypeError: MCP server "h" answered tools/list with a nextCursor longer than ${MAX_MCP_CURSOR_CHARS} characters; the listing stops there`])
    }
    finally {
      await mcp.close()
    }
  })
})

describe('a server whose tools would fill every request', () => {
  it('has a title of a megabyte, standing in for the description, cut like one', async () => {
    const { mcp, messages } = await connect('big-title', 1_000_000)
    try {
      expect(mcp.tools.mcp__h__titled.spec.description).toBe(`${'T'.repeat(MAX_MCP_DESCRIPTION_CHARS)}…`)
      expect(messages()).toEqual([`TypeError: MCP server "h": the title of 1 tool is longer than ${MAX_MCP_DESCRIPTION_CHARS} characters and was cut`])
    }
    finally {
      await mcp.close()
    }
  })

  it('has a tool whose input schema is megabytes of JSON left out and reported, and keeps the others', async () => {
    const { mcp, messages } = await connect('big-schema', 1_000_000)
    try {
      expect(Object.keys(mcp.tools)).toEqual(['mcp__h__ok'])
      expect(await mcp.tools.mcp__h__ok.execute({}, toolContext())).toBe('ok')
      expect(messages()).toEqual([`TypeError: MCP server "h": the input schema of tool "big" is longer than ${MAX_MCP_SCHEMA_CHARS} characters as JSON; the tool is left out`])
    }
    finally {
      await mcp.close()
    }
  })
})

describe('a server that floods requests and never reads its input', () => {
  it('is disconnected and reported once its unread answers pile up, and its call fails', async () => {
    const { mcp, messages } = await connect('flood', 0, { toolTimeout: 30_000 })
    try {
      const started = Date.now()
      await expect(mcp.tools.mcp__h__ok.execute({}, toolContext())).rejects.toThrow()
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(messages()[0]).toMatch(new RegExp(`^Error: MCP server "h" does not read its input \\(${MAX_MCP_STDIN_BACKLOG_WRITES} messages waiting\\); the connection is closed$`))
    }
    finally {
      await mcp.close()
    }
  }, 40_000)
})

describe('a stdio server answering a call with a malformed message', () => {
  it('fails the call at once with what was wrong, rather than at toolTimeout', async () => {
    const { mcp } = await connect('malformed-answers', 0, { toolTimeout: 30_000 })
    try {
      const started = Date.now()
      await expect(mcp.tools['mcp__h__null-result'].execute({}, toolContext())).rejects.toThrow(/MCP server "h" sent a malformed answer to request \d+: result: /)
      await expect(mcp.tools['mcp__h__string-code'].execute({}, toolContext())).rejects.toThrow(/MCP server "h" sent a malformed answer to request \d+: error\.code: /)
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(await mcp.tools.mcp__h__ok.execute({}, toolContext())).toBe('ok')
    }
    finally {
      await mcp.close()
    }
  }, 70_000)
})

/** A streamable-HTTP server whose event stream (`GET`) ends right after `retry: 0`; it counts the `GET`s. */
async function startRetryZeroServer() {
  let gets = 0
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      gets++
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' })
      res.end(`retry: 0\nid: e${gets}\n\n`)
      return
    }
    if (req.method !== 'POST') {
      res.writeHead(200).end()
      return
    }
    let body = ''
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString()
    })
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: number, method: string, params?: { protocolVersion?: string } }
      if (message.id === undefined) {
        res.writeHead(202).end()
        return
      }
      const result = message.method === 'initialize'
        ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'retry-zero', version: '1' } }
        : { tools: [{ name: 'ok', inputSchema: { type: 'object' } }] }
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' })
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    gets: () => gets,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

describe('a streamable-HTTP server whose event stream ends right after retry: 0', () => {
  it('is asked for it again at most once per MIN_MCP_EVENT_STREAM_INTERVAL_MS, not in a tight loop', async () => {
    const server = await startRetryZeroServer()
    const mcp = await connectMcpServers([{ name: 'r', transport: 'streamable-http', url: server.url }])
    try {
      expect(mcp.servers[0].status).toBe('connected')
      const watchMs = 2_000
      const before = server.gets()
      await new Promise(resolve => setTimeout(resolve, watchMs))
      expect(server.gets() - before).toBeLessThanOrEqual(watchMs / MIN_MCP_EVENT_STREAM_INTERVAL_MS + 1)
      expect(server.gets()).toBeGreaterThan(0)
    }
    finally {
      await mcp.close()
      await server.close()
    }
  })
})

/** Run the wrapped-server program; SIGKILL it if it has not exited by itself within `boundMs`. */
function runWrappedHost(mode: string, boundMs: number): Promise<ProgramEnd> {
  return runUntilExit(WRAPPED_HOST, [mode], boundMs)
}

describe('a server behind a wrapper, ignoring SIGTERM', () => {
  for (const mode of ['direct', 'pool']) {
    it(`lets the program exit once closed (${mode})`, async () => {
      const finished = await runWrappedHost(mode, 15_000)
      const server = (JSON.parse(finished.stdout.split('\n')[0] || '{}') as { server?: number }).server
      try {
        expect({ timedOut: finished.timedOut, code: finished.code, stderr: finished.stderr }).toEqual({ timedOut: false, code: 0, stderr: '' })
        expect(JSON.parse(finished.stdout.split('\n')[0])).toMatchObject({ status: 'connected' })
      }
      finally {
        // The server itself is an orphan the host cannot reach without killing its own process group.
        if (server && isAlive(server))
          process.kill(server, 'SIGKILL')
      }
    }, 30_000)
  }
})
