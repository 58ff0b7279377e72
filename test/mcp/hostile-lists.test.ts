import type { McpServerConfig } from '../../src/mcp'
import type { ToolResultBlock } from '../../src/types'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { connectMcpServers, MAX_MCP_DESCRIPTION_CHARS, MAX_MCP_LISTED_TOOLS, MAX_MCP_TOOL_NAME_CHARS, MAX_WAITING_ELICITATIONS } from '../../src/mcp'
import { scriptedProvider } from '../../src/testing'
import { blocksOfType } from '../support/helpers'
import { toolContext } from './support'

// What a server lists, and the requests it makes to the client, are outside bytes: whatever it sends, the
// connection comes up in bounded time and memory with the tools that can be used, each problem is reported to
// onServerError, and the host's handlers are not flooded.

// A stdio server writing its own JSON-RPC lines (no SDK, so nothing checks what it sends). MODE picks the case.
const SERVER_SOURCE = `
import { createInterface } from 'node:readline'
const MODE = process.env.MODE
const N = Number(process.env.N ?? 0)
const write = message => process.stdout.write(JSON.stringify(message) + '\\n')
const tool = (name, extra = {}) => ({ name, description: 'd', inputSchema: { type: 'object', properties: {} }, ...extra })
let page = 0
// The elicitation case: what each elicitation was answered, then sent as the result of the call that asked.
const answers = []
let callId
const pages = {
  // Names that differ but all sanitize to "x_".
  clash: () => ({ tools: Array.from({ length: N }, (_, i) => tool('x' + String.fromCodePoint(0x4E00 + i))) }),
  malformed: () => ({ tools: [tool('ok'), { name: 'noschema' }, { name: 42, inputSchema: { type: 'object' } }, ...Array.from({ length: N }, (_, i) => ({ name: 'b' + i, inputSchema: { type: 'string' } }))] }),
  twice: () => ({ tools: [tool('x', { description: 'first' }), tool('y'), tool('x', { description: 'second' })] }),
  longname: () => ({ tools: [tool('n'.repeat(N)), tool('m'.repeat(N)), tool('ok')] }),
  cycle: () => ({ tools: [tool('t' + page++)], nextCursor: page < 3 ? 'c' + page : 'c1' }),
  endless: () => ({ tools: Array.from({ length: 1000 }, (_, i) => tool('p' + page + '_' + i)), nextCursor: String(++page) }),
  long: () => ({ tools: [tool('long', { description: 'D'.repeat(N) }), tool('short')] }),
}
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line)
  if (message.method === 'initialize') {
    write({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' }, instructions: MODE === 'long' ? 'I'.repeat(N) : undefined } })
  }
  else if (message.method === 'tools/list') {
    write({ jsonrpc: '2.0', id: message.id, result: (pages[MODE] ?? (() => ({ tools: [tool('ok')] })))() })
  }
  else if (message.method === 'tools/call') {
    if (MODE === 'ask') {
      callId = message.id
      for (let i = 0; i < N; i++)
        write({ jsonrpc: '2.0', id: 'e' + i, method: 'elicitation/create', params: { message: 'question ' + i, requestedSchema: { type: 'object', properties: {} } } })
    }
    else {
      write({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'ok' }] } })
    }
  }
  else if (MODE === 'ask' && typeof message.id === 'string') {
    answers.push(message.result?.action ?? 'error')
    if (answers.length === N)
      write({ jsonrpc: '2.0', id: callId, result: { content: [{ type: 'text', text: answers.join(',') }] } })
  }
})
`

function rawServer(mode: string, n = 0, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name: 'h', transport: 'stdio', command: process.execPath, args: ['--input-type=module', '-e', SERVER_SOURCE], env: { MODE: mode, N: String(n) }, ...extra }
}

/** Connect to one raw server; its tools, server info and every error reported. */
async function connect(mode: string, n = 0, extra: Partial<McpServerConfig> = {}) {
  const errors: Error[] = []
  const mcp = await connectMcpServers([rawServer(mode, n, extra)], { onServerError: (_, error) => errors.push(error) })
  return { mcp, errors, messages: errors.map(error => `${error.name}: ${error.message}`) }
}

describe('a server whose tools/list is hostile', () => {
  it('names 10,000 tools whose names clash after sanitizing in linear time', async () => {
    const started = Date.now()
    const { mcp } = await connect('clash', MAX_MCP_LISTED_TOOLS)
    try {
      expect(Date.now() - started).toBeLessThan(5_000)
      const canonical = Object.keys(mcp.tools)
      expect(canonical).toHaveLength(MAX_MCP_LISTED_TOOLS)
      expect(canonical.slice(0, 3)).toEqual(['mcp__h__x_', 'mcp__h__x__2', 'mcp__h__x__3'])
      expect(canonical.at(-1)).toBe(`mcp__h__x__${MAX_MCP_LISTED_TOOLS}`)
      expect(new Set(Object.values(mcp.aliases)).size).toBe(MAX_MCP_LISTED_TOOLS)
      expect(mcp.origins.mcp__h__x__3).toEqual({ server: 'h', tool: 'x\u4E02' })
    }
    finally {
      await mcp.close()
    }
  })

  it('leaves malformed tools out, keeps the others, and names the first problems in one short report', async () => {
    const { mcp, messages } = await connect('malformed', 50_000)
    try {
      expect(mcp.servers[0].status).toBe('connected')
      expect(Object.keys(mcp.tools)).toEqual(['mcp__h__ok'])
      expect(await mcp.tools.mcp__h__ok.execute({}, toolContext())).toBe('ok')
      expect(messages).toHaveLength(2)
      expect(messages[0]).toBe(`TypeError: MCP server "h" lists more than ${MAX_MCP_LISTED_TOOLS} tools; the rest are left out`)
      expect(messages[1]).toBe(`TypeError: MCP server "h": ${MAX_MCP_LISTED_TOOLS - 1} listed tools do not match the MCP schema and are left out: `
        + 'tools.1.inputSchema: Invalid input: expected object, received undefined; tools.2.name: Invalid input: expected string, received number; '
        + 'tools.3.inputSchema.type: Invalid input: expected "object"; tools.4.inputSchema.type: Invalid input: expected "object"; '
        + `tools.5.inputSchema.type: Invalid input: expected "object"; and ${MAX_MCP_LISTED_TOOLS - 6} more`)
    }
    finally {
      await mcp.close()
    }
  })

  it('leaves out tools named with a megabyte, and keeps the others', async () => {
    const { mcp, messages } = await connect('longname', 1_000_000)
    try {
      expect(Object.keys(mcp.tools)).toEqual(['mcp__h__ok'])
      expect(messages).toEqual([`TypeError: MCP server "h" lists 2 tools named with more than ${MAX_MCP_TOOL_NAME_CHARS} characters ("${'n'.repeat(40)}…", "${'m'.repeat(40)}…"); they are left out`])
    }
    finally {
      await mcp.close()
    }
  })

  it('keeps the first of two tools listed under one name', async () => {
    const { mcp, messages } = await connect('twice')
    try {
      expect(Object.keys(mcp.tools)).toEqual(['mcp__h__x', 'mcp__h__y'])
      expect(mcp.tools.mcp__h__x.spec.description).toBe('first')
      expect(mcp.servers[0].tools).toEqual(['x', 'y'])
      expect(messages).toEqual(['TypeError: MCP server "h" lists 1 tool a second time ("x"); only the first of each name is kept'])
    }
    finally {
      await mcp.close()
    }
  })

  it('stops at a cursor the server gave before, keeping what it listed', async () => {
    const { mcp, messages } = await connect('cycle', 0, { bootstrapTimeout: 3_000 })
    try {
      expect(mcp.servers[0].status).toBe('connected')
      expect(Object.keys(mcp.tools)).toEqual(['mcp__h__t0', 'mcp__h__t1', 'mcp__h__t2'])
      expect(messages).toEqual(['TypeError: MCP server "h" answered tools/list with a nextCursor it gave before ("c1"); the listing stops there'])
    }
    finally {
      await mcp.close()
    }
  })

  it('stops a listing that never ends at MAX_MCP_LISTED_TOOLS, well within bootstrapTimeout', async () => {
    const started = Date.now()
    const { mcp, messages } = await connect('endless', 0, { bootstrapTimeout: 5_000 })
    try {
      expect(Date.now() - started).toBeLessThan(4_000)
      expect(mcp.servers[0].status).toBe('connected')
      expect(Object.keys(mcp.tools)).toHaveLength(MAX_MCP_LISTED_TOOLS)
      expect(messages).toEqual([`TypeError: MCP server "h" lists more than ${MAX_MCP_LISTED_TOOLS} tools; the rest are left out`])
    }
    finally {
      await mcp.close()
    }
  })

  it('cuts a description and instructions of a megabyte, which every request would carry', async () => {
    const { mcp, messages } = await connect('long', 1_000_000)
    try {
      expect(mcp.tools.mcp__h__long.spec.description).toBe(`${'D'.repeat(MAX_MCP_DESCRIPTION_CHARS)}…`)
      expect(mcp.tools.mcp__h__short.spec.description).toBe('d')
      expect(mcp.servers[0].instructions).toBe(`${'I'.repeat(MAX_MCP_DESCRIPTION_CHARS)}…`)
      expect(messages).toEqual([
        `TypeError: MCP server "h": its instructions are longer than ${MAX_MCP_DESCRIPTION_CHARS} characters and were cut`,
        `TypeError: MCP server "h": the description of 1 tool is longer than ${MAX_MCP_DESCRIPTION_CHARS} characters and was cut`,
      ])
    }
    finally {
      await mcp.close()
    }
  })

  it('gives an agent the usable tools of a malformed list, and its run goes on', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'mcp_h_ok', input: {} }] }, { text: 'done' }])
    const agent = createAgent({ provider, mcpServers: [rawServer('malformed', 3)] })
    try {
      const stats = await agent.run({ prompt: 'go' })
      expect(stats.stopReason).toBe('completed')
      expect(provider.requests[0].tools?.map(tool => tool.name)).toEqual(['mcp_h_ok'])
      const results = blocksOfType(provider.requests[1].messages, 'tool_result') as ToolResultBlock[]
      expect(results.map(result => [result.output, result.isError])).toEqual([['ok', undefined]])
    }
    finally {
      await agent.destroy()
    }
  })
})

describe('a server that floods the client with elicitations', () => {
  it('has them put to the host one at a time, and declines those past MAX_WAITING_ELICITATIONS unasked', async () => {
    const asked = 1_000
    const provider = scriptedProvider([{ toolCalls: [{ name: 'mcp_h_ok', input: {} }] }, { text: 'done' }])
    const agent = createAgent({ provider, mcpServers: [rawServer('ask', asked, { toolTimeout: 10_000 })] })
    let open = 0
    let most = 0
    const seen: string[] = []
    agent.hooks.hook('mcp:elicitation', async (ctx) => {
      seen.push(ctx.message)
      most = Math.max(most, ++open)
      // The first answer takes long enough for all the others to arrive meanwhile.
      await new Promise(resolve => setTimeout(resolve, seen.length === 1 ? 500 : 5))
      open--
      ctx.action = 'accept'
      ctx.content = {}
    })
    try {
      const stats = await agent.run({ prompt: 'go' })
      expect(stats.stopReason).toBe('completed')
      expect(most).toBe(1)
      // The first is answered at once; the next ones wait their turn, in order.
      expect(seen).toEqual(Array.from({ length: MAX_WAITING_ELICITATIONS + 1 }, (_, i) => `question ${i}`))
      const results = blocksOfType(provider.requests[1].messages, 'tool_result') as ToolResultBlock[]
      const answers = String(results[0].output).split(',')
      expect(answers).toHaveLength(asked)
      expect(answers.filter(answer => answer === 'accept')).toHaveLength(MAX_WAITING_ELICITATIONS + 1)
      expect(answers.filter(answer => answer === 'decline')).toHaveLength(asked - MAX_WAITING_ELICITATIONS - 1)
    }
    finally {
      await agent.destroy()
    }
  })
})
