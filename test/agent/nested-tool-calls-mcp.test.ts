import type { NestedToolCallResult, ToolDef } from '../../src'
import type { McpServerConfig } from '../../src/mcp'
import type { TestHttpServer } from '../mcp/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { startHttpMcpServer } from '../mcp/support'

// A nested call names MCP tools as the model does: the canonical
// `mcp__<server>__<tool>` name or the wire name, and a lazily disclosed tool
// only once `tool_search` has loaded it, directly or through `call_tool`.

let mcp: TestHttpServer
beforeAll(async () => {
  mcp = await startHttpMcpServer()
})
afterAll(async () => {
  await mcp.close()
})

const calc = (): McpServerConfig => ({ name: 'calc', transport: 'streamable-http', url: mcp.url, enabledTools: ['add'] })

interface Planned { name: string, input: Record<string, unknown> }

function routerTool(answers: NestedToolCallResult[]): ToolDef {
  return {
    spec: { name: 'router', description: 'router', inputSchema: { type: 'object' } },
    async execute(input: { calls: Planned[] }, ctx) {
      for (const call of input.calls)
        answers.push(await ctx.callTool(call.name, call.input))
      return 'routed'
    },
  }
}

describe('nested calls of MCP tools under lazy disclosure', () => {
  it('refuse a tool not loaded yet, then reach it by wire name, canonical name and call_tool', async () => {
    const answers: NestedToolCallResult[] = []
    const args = { a: 2, b: 3 }
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'r1', name: 'router', input: { calls: [{ name: 'mcp_calc_add', input: args }] } }] },
      { toolCalls: [{ id: 's1', name: 'tool_search', input: { query: 'add numbers' } }] },
      { toolCalls: [{ id: 'r2', name: 'router', input: { calls: [
        { name: 'mcp_calc_add', input: args },
        { name: 'mcp__calc__add', input: args },
        { name: 'call_tool', input: { name: 'mcp_calc_add', arguments: args } },
      ] } }] },
      { text: 'done' },
    ])
    const mcpAfter: string[] = []
    const agent = createAgent({
      provider,
      tools: { router: routerTool(answers) },
      mcpServers: [calc()],
      behavior: { toolDisclosure: 'lazy', surfaceMcpInstructions: false },
      hooks: { 'mcp:tool:after': ctx => void mcpAfter.push(`${ctx.server}/${ctx.tool} ${ctx.callId} parent=${ctx.parentToolCallId}`) },
    })
    try {
      await agent.run({ prompt: 'add' })
    }
    finally {
      await agent.destroy()
    }
    expect(answers[0]).toMatchObject({ name: 'mcp__calc__add', blocked: true, blockedBy: 'loop', output: expect.stringContaining('schema is not loaded yet') })
    expect(answers.slice(1).map(answer => [answer.name, answer.isError, JSON.stringify(answer.output).includes('5')])).toEqual([
      ['mcp__calc__add', false, true],
      ['mcp__calc__add', false, true],
      ['mcp__calc__add', false, true],
    ])
    // A refused call is reported on the after hooks too, as the model's are.
    expect(mcpAfter).toEqual(['calc/add r1.1 parent=r1', 'calc/add r2.1 parent=r2', 'calc/add r2.2 parent=r2', 'calc/add r2.3 parent=r2'])
  })
})
