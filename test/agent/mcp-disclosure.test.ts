import type { McpServerConfig } from '../../src/mcp'
import type { TestHttpServer } from '../mcp/support'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { createMemoryStore, createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { createToolSearchTool, tool } from '../../src/tools'
import { startHttpMcpServer } from '../mcp/support'
import { startFakeAnthropic } from '../support/fake-anthropic'

let mcp: TestHttpServer
beforeAll(async () => {
  mcp = await startHttpMcpServer()
})
afterAll(async () => {
  await mcp.close()
})

const calc = (): McpServerConfig => ({ name: 'calc', transport: 'streamable-http', url: mcp.url, enabledTools: ['add', 'image', 'fail'] })
const note = tool({ name: 'note', description: 'Write a note', input: z.object({ text: z.string() }), execute: ({ text }) => `noted ${text}` })

/** Text of the last tool result the request carries. */
function lastToolOutput(request: { messages: { content: unknown[] }[] }): string {
  const block = request.messages.at(-1)!.content.find(b => (b as { type: string }).type === 'tool_result') as { output: unknown }
  return typeof block.output === 'string' ? block.output : JSON.stringify(block.output)
}

describe('lazy disclosure over the Messages API, dispatch mode', () => {
  let fake: FakeAnthropic
  beforeAll(async () => {
    fake = await startFakeAnthropic()
  })
  afterAll(async () => {
    await fake.close()
  })

  it('discovers a tool with tool_search, calls it through call_tool, and never changes the tools array', async () => {
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'tool_search', input: { query: 'add numbers' } }] } },
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_2', name: 'call_tool', input: { name: 'mcp_calc_add', arguments: { a: 2, b: 3 } } }] } },
      { type: 'turn', turn: { text: 'The sum is 5.' } },
    )
    const seen: string[] = []
    const mcpSeen: string[] = []
    const agent = createAgent({
      provider: anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }),
      tools: { note },
      mcpServers: [calc()],
      behavior: { toolDisclosure: 'lazy', surfaceMcpInstructions: false },
      hooks: {
        'tool:gate': ctx => void seen.push(`gate ${ctx.name} ${ctx.displayName} ${JSON.stringify(ctx.input)}`),
        'tool:after': ctx => void seen.push(`after ${ctx.name} ${JSON.stringify(ctx.result)}`),
        'mcp:tool:after': ctx => void mcpSeen.push(`${ctx.server}/${ctx.tool} ${ctx.callId} ${ctx.outputBytes}`),
      },
    })
    const stats = await agent.run({ prompt: 'What is 2 + 3?' })
    await agent.destroy()

    expect(stats.text).toBe('The sum is 5.')
    const requests = fake.requests.map(r => r.body)
    expect(requests).toHaveLength(3)
    const toolsJson = requests.map(body => JSON.stringify(body.tools))
    expect(new Set(toolsJson).size).toBe(1)
    expect(requests[0].tools.map((t: { name: string }) => t.name)).toEqual(['note', 'tool_search', 'call_tool'])

    const system = JSON.stringify(requests[0].system)
    expect(system).toContain('# Searchable Tools')
    expect(system).toContain('- mcp_calc_add: Add two numbers')
    expect(system).toContain('call_tool')

    // The search result carries the schema; the envelope's result is the inner tool's.
    const searchResult = JSON.stringify(requests[1].messages.at(-1))
    expect(searchResult).toContain('mcp_calc_add')
    expect(searchResult).toContain('Input schema')
    const callResult = requests[2].messages.at(-1).content[0]
    expect(callResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_2' })
    expect(JSON.stringify(callResult.content)).toContain('5')
    expect(callResult.is_error).toBeFalsy()

    // Hooks saw the inner tool, as with a direct call.
    expect(seen).toContain('gate mcp__calc__add mcp_calc_add {"a":2,"b":3}')
    expect(seen).toContain('after mcp__calc__add "5"')
    expect(mcpSeen).toEqual(['calc/add toolu_2 1'])
    // The session of the run keeps the model's own call: the envelope.
    expect(requests[2].messages[3].content).toEqual([expect.objectContaining({ type: 'tool_use', id: 'toolu_2', name: 'call_tool' })])
  }, 30_000)
})

describe('lazy disclosure', () => {
  it('refuses an undisclosed tool, validates call_tool arguments against the inner schema, and gates by the inner name', async () => {
    const provider = scriptedProvider([
      // Before any search: through the envelope and directly.
      { toolCalls: [{ name: 'call_tool', input: { name: 'mcp_calc_add', arguments: { a: 1, b: 1 } } }, { name: 'mcp_calc_add', input: { a: 1, b: 1 } }] },
      { toolCalls: [{ name: 'tool_search', input: { query: 'select:mcp_calc_add,mcp_calc_fail' } }] },
      // Bad inner arguments, a malformed envelope, a gated inner tool, an envelope inside an envelope.
      { toolCalls: [
        { name: 'call_tool', input: { name: 'mcp_calc_add', arguments: { a: 'one', b: 1 } } },
        { name: 'call_tool', input: { arguments: {} } },
        { name: 'call_tool', input: { name: 'mcp_calc_fail', arguments: {} } },
        { name: 'call_tool', input: { name: 'call_tool', arguments: { name: 'mcp_calc_add' } } },
        { name: 'call_tool', input: { name: 'mcp_calc_add', arguments: '{"a":4,"b":5}' } },
      ] },
      { text: 'done' },
    ])
    const agent = createAgent({
      provider,
      mcpServers: [calc()],
      behavior: { toolDisclosure: 'lazy' },
      hooks: {
        'tool:gate': (ctx) => {
          if (ctx.name === 'mcp__calc__fail') {
            ctx.block = true
            ctx.reason = 'no failing today'
          }
        },
      },
    })
    await agent.run({ prompt: 'go' })
    await agent.destroy()

    const first = provider.requests[1].messages.at(-1)!.content as { output: string, isError?: boolean }[]
    expect(first[0].isError).toBe(true)
    expect(first[0].output).toContain('"mcp_calc_add" is a searchable tool whose schema is not loaded yet. Load it with tool_search first, then call it through call_tool')
    expect(first[1].isError).toBe(true)
    expect(first[1].output).toContain('not loaded yet')

    const third = provider.requests[3].messages.at(-1)!.content as { output: string, isError?: boolean }[]
    expect(third[0]).toMatchObject({ isError: true })
    expect(third[0].output).toMatch(/^Invalid arguments for mcp_calc_add: /)
    expect(third[1].output).toMatch(/^Invalid arguments for call_tool: "name" must be/)
    expect(third[2].output).toBe('Blocked: no failing today')
    expect(third[3].output).toContain('cannot be called through call_tool')
    expect(third[4]).toMatchObject({ output: '9' })
    expect(third[4].isError).toBeFalsy()
  }, 30_000)

  it('unlock mode appends loaded schemas to the tools array, in discovery order, from the next turn', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'tool_search', input: { query: 'select:mcp_calc_image' } }] },
      { toolCalls: [{ name: 'tool_search', input: { query: 'select:mcp_calc_add' } }] },
      { toolCalls: [{ name: 'mcp_calc_add', input: { a: 20, b: 22 } }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: { note }, mcpServers: [calc()], behavior: { toolDisclosure: 'lazy', toolSearch: { mode: 'unlock' } } })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    const names = provider.requests.map(r => r.tools.map(t => t.name))
    expect(names[0]).toEqual(['note', 'tool_search'])
    expect(names[1]).toEqual(['note', 'tool_search', 'mcp_calc_image'])
    expect(names[2]).toEqual(['note', 'tool_search', 'mcp_calc_image', 'mcp_calc_add'])
    expect(provider.requests[1].tools[2].inputSchema).toMatchObject({ type: 'object' })
    expect(lastToolOutput(provider.requests[3])).toBe('42')
    expect(provider.requests[0].system).toContain('a loaded tool can be called directly from the next turn')
    expect(provider.requests[0].system).not.toContain('call_tool')
  }, 30_000)

  it('honors a per-server disclosure over the agent-wide mode, both ways', async () => {
    const lazyServer = { ...calc(), name: 'big', disclosure: 'lazy' as const }
    const eagerServer = { ...calc(), name: 'small' }
    const provider = scriptedProvider([{ text: 'a' }, { text: 'b' }])
    const agent = createAgent({ provider, mcpServers: [lazyServer, eagerServer] })
    await agent.run({ prompt: 'x' })
    await agent.destroy()
    const names = provider.requests[0].tools.map(t => t.name)
    expect(names).toEqual(['mcp_small_add', 'mcp_small_image', 'mcp_small_fail', 'tool_search', 'call_tool'])
    expect(provider.requests[0].system).toContain('## big\n- mcp_big_add: Add two numbers')

    const second = scriptedProvider([{ text: 'a' }])
    const agent2 = createAgent({ provider: second, mcpServers: [{ ...calc(), disclosure: 'eager' }], behavior: { toolDisclosure: 'lazy' } })
    await agent2.run({ prompt: 'x' })
    await agent2.destroy()
    expect(second.requests[0].tools.map(t => t.name)).toEqual(['mcp_calc_add', 'mcp_calc_image', 'mcp_calc_fail'])
    expect(second.requests[0].system).not.toContain('Searchable Tools')
  }, 30_000)

  it('toolSearch.limit caps results, catalog "names" drops descriptions, tool: false injects nothing', async () => {
    const limited = scriptedProvider([{ toolCalls: [{ name: 'tool_search', input: { query: 'mcp calc' } }] }, { text: 'ok' }])
    const a = createAgent({ provider: limited, mcpServers: [calc()], behavior: { toolDisclosure: 'lazy', toolSearch: { limit: 2, catalog: 'names' } } })
    await a.run({ prompt: 'x' })
    await a.destroy()
    const result = lastToolOutput(limited.requests[1])
    expect(result).toMatch(/^Loaded 2 tools\./)
    expect(result.match(/^## /gm)).toHaveLength(2)
    expect(limited.requests[0].system).toContain('## calc\n- mcp_calc_add\n- mcp_calc_image\n- mcp_calc_fail')
    expect(limited.requests[0].system).not.toContain('Add two numbers')

    const off = scriptedProvider([{ toolCalls: [{ name: 'mcp_calc_add', input: { a: 1, b: 2 } }] }, { text: 'ok' }])
    const b = createAgent({ provider: off, mcpServers: [calc()], behavior: { toolDisclosure: 'lazy', toolSearch: { tool: false } } })
    await b.run({ prompt: 'x' })
    await b.destroy()
    expect(off.requests[0].tools).toEqual([])
    expect(off.requests[0].system).toContain('# Searchable Tools')
    expect(off.requests[0].system).not.toContain('tool_search')
    expect(lastToolOutput(off.requests[1])).toBe('Error: "mcp_calc_add" is a searchable tool that has not been loaded in this run.')
  }, 30_000)

  it('adopts a host search tool built with createToolSearchTool; a bare host tool_search cannot disclose', async () => {
    const unlocked = new Set<string>()
    const hostSearch = createToolSearchTool({
      name: 'find_tools',
      catalog: [{ name: 'mcp__calc__add', wireName: 'mcp_calc_add', description: 'Adds', inputSchema: { type: 'object' } }],
      unlocked,
    })
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'find_tools', input: { query: 'adds' } }] },
      { toolCalls: [{ name: 'call_tool', input: { name: 'mcp_calc_add', arguments: { a: 1, b: 2 } } }] },
      { text: 'ok' },
    ])
    const agent = createAgent({ provider, tools: { find_tools: hostSearch }, mcpServers: [calc()], behavior: { toolDisclosure: 'lazy' } })
    await agent.run({ prompt: 'x' })
    await agent.destroy()
    expect(provider.requests[0].tools.map(t => t.name)).toEqual(['find_tools', 'call_tool'])
    expect(provider.requests[0].system).toContain('Call `find_tools`')
    expect(unlocked.has('mcp__calc__add')).toBe(true)
    expect(lastToolOutput(provider.requests[2])).toBe('3')

    const bare = tool({ name: 'tool_search', description: 'host search', input: z.object({ query: z.string() }), execute: () => 'nothing here' })
    const shadowed = scriptedProvider([
      { toolCalls: [{ name: 'tool_search', input: { query: 'add' } }, { name: 'mcp_calc_add', input: { a: 1, b: 2 } }] },
      { text: 'ok' },
    ])
    const agent2 = createAgent({ provider: shadowed, tools: { tool_search: bare }, mcpServers: [calc()], behavior: { toolDisclosure: 'lazy' } })
    await agent2.run({ prompt: 'x' })
    await agent2.destroy()
    expect(shadowed.requests[0].tools.map(t => t.name)).toEqual(['tool_search'])
    const results = shadowed.requests[1].messages.at(-1)!.content as { output: string }[]
    expect(results[0].output).toBe('nothing here')
    expect(results[1].output).toContain('not loaded yet')
  }, 30_000)

  it('a resumed session keeps the tools the conversation already called callable', async () => {
    const session = await createSession({ store: createMemoryStore() })
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'tool_search', input: { query: 'select:mcp_calc_add' } }] },
      { toolCalls: [{ name: 'call_tool', input: { name: 'mcp_calc_add', arguments: { a: 1, b: 1 } } }] },
      { text: 'two' },
      { toolCalls: [{ name: 'call_tool', input: { name: 'mcp_calc_add', arguments: { a: 2, b: 2 } } }] },
      { text: 'four' },
    ])
    const agent = createAgent({ provider, session, mcpServers: [calc()], behavior: { toolDisclosure: 'lazy' } })
    await agent.run({ prompt: 'one plus one' })
    const again = await agent.run({ prompt: 'two plus two' })
    await agent.destroy()
    expect(again.text).toBe('four')
    expect(lastToolOutput(provider.requests[4])).toBe('4')
  }, 30_000)
})

describe('mCP hooks on an agent', () => {
  it('mcp:tools:filter narrows the tools, mcp:tool:transform rewrites results, mcp:close fires on destroy', async () => {
    const closed: string[] = []
    const transforms: string[] = []
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'mcp_calc_add', input: { a: 1, b: 2 } }, { name: 'note', input: { text: 'n' } }] },
      { text: 'ok' },
    ])
    const agent = createAgent({
      provider,
      tools: { note },
      mcpServers: [calc()],
      hooks: {
        'mcp:tools:filter': (ctx) => {
          ctx.tools = ctx.tools.filter(t => t.name !== 'image')
        },
        'mcp:tool:transform': (ctx) => {
          transforms.push(`${ctx.server}/${ctx.tool} ${ctx.name} ${ctx.displayName} ${ctx.outputBytes}`)
          ctx.result = `${String(ctx.result)} (checked)`
        },
        'mcp:close': ctx => void closed.push(`${ctx.server}:${ctx.status}`),
      },
    })
    await agent.run({ prompt: 'x' })
    expect(provider.requests[0].tools.map(t => t.name)).toEqual(['note', 'mcp_calc_add', 'mcp_calc_fail'])
    const results = provider.requests[1].messages.at(-1)!.content as { output: string }[]
    expect(results[0].output).toBe('3 (checked)')
    expect(results[1].output).toBe('noted n')
    expect(transforms).toEqual(['calc/add mcp__calc__add mcp_calc_add 1'])
    expect(closed).toEqual([])
    await agent.destroy()
    expect(closed).toEqual(['calc:connected'])
  }, 30_000)

  it('leaves a lazyConnect server\'s instructions out of the system prompt, even once it has connected', async () => {
    const eager = scriptedProvider([{ text: 'a' }])
    const a = createAgent({ provider: eager, mcpServers: [calc()], system: 'Base.' })
    await a.run({ prompt: 'x' })
    await a.destroy()
    expect(eager.requests[0].system).toContain('Numbers are small.')

    const provider = scriptedProvider([
      { toolCalls: [{ name: 'mcp_calc_add', input: { a: 1, b: 2 } }] },
      { text: 'three' },
      { text: 'again' },
    ])
    const lazy = { ...calc(), lazyConnect: true, cachedTools: [{ name: 'add', description: 'Add two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }] }
    const agent = createAgent({ provider, mcpServers: [lazy], system: 'Base.' })
    await agent.run({ prompt: 'x' })
    await agent.run({ prompt: 'y' })
    await agent.destroy()
    expect(lastToolOutput(provider.requests[1])).toBe('3')
    expect(provider.requests.map(r => r.system)).toEqual(['Base.', 'Base.', 'Base.'])
  }, 30_000)

  it('uses the host connector and bounds it with mcpConnectTimeoutMs', async () => {
    const provider = scriptedProvider([{ text: 'never' }])
    const agent = createAgent({
      provider,
      mcpServers: [calc()],
      mcpConnector: () => new Promise(() => {}),
      behavior: { mcpConnectTimeoutMs: 150 },
    })
    await expect(agent.run({ prompt: 'x' })).rejects.toThrow(/MCP connect/)
    expect(provider.requests).toHaveLength(0)
    await agent.destroy()
  })
})
