import type { McpServerConfig } from '../../src/mcp'
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createMcpServerPool } from '../../src/mcp'
import { createMemoryStore, createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { EVERYTHING_ENTRY, isAlive } from '../mcp/support'

/** Live processes whose environment carries `marker` (how a test finds the server it started). */
function processesMarked(marker: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry))
      continue
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(marker) && isAlive(Number(entry)))
        pids.push(Number(entry))
    }
    catch {}
  }
  return pids
}

const everything: McpServerConfig = { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] }

describe('an agent with MCP servers', () => {
  it('connects on the first run, offers the tools under wire names, calls them, and closes on destroy', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'mcp_everything_echo', input: { message: 'hello' } }] },
      { respond: req => ({ text: String((req.messages.at(-1)!.content[0] as { output: unknown }).output) }) },
      { text: 'second run' },
    ])
    const names: string[] = []
    const marker = `ZIDANE_TEST_MARK=${randomUUID()}`
    const marked = { ...everything, env: { ZIDANE_TEST_MARK: marker.split('=')[1] } }
    const agent = createAgent({ provider, mcpServers: [marked], hooks: { 'tool:after': ({ name, displayName }) => void names.push(`${name}|${displayName}`) } })

    const stats = await agent.run({ prompt: 'echo hello' })
    expect(stats.text).toContain('Echo: hello')
    expect(names).toEqual(['mcp__everything__echo|mcp_everything_echo'])
    expect(provider.requests[0].tools.map(t => t.name)).toContain('mcp_everything_echo')

    // The connection is reused by later runs, and the system prompt stays the same bytes.
    await agent.run({ prompt: 'again' })
    expect(provider.requests[2].system).toBe(provider.requests[0].system)

    expect(processesMarked(marker)).toHaveLength(1)
    await agent.destroy()
    expect(processesMarked(marker)).toEqual([])
  }, 30_000)

  it('puts the servers\' instructions in the system prompt unless surfaceMcpInstructions is false', async () => {
    const withInstructions = scriptedProvider([{ text: 'a' }])
    const a = createAgent({ provider: withInstructions, mcpServers: [everything], system: 'Base prompt.' })
    await a.run({ prompt: 'x' })
    await a.destroy()
    const system = withInstructions.requests[0].system
    expect(system.startsWith('Base prompt.\n\n# MCP Server Instructions')).toBe(true)

    const without = scriptedProvider([{ text: 'b' }])
    const b = createAgent({ provider: without, mcpServers: [everything], system: 'Base prompt.', behavior: { surfaceMcpInstructions: false } })
    await b.run({ prompt: 'x' })
    await b.destroy()
    expect(without.requests[0].system).toBe('Base prompt.')
  }, 30_000)

  it('a run with its own tools offers no MCP tools; mcpToolNameSeparator changes the wire names', async () => {
    const provider = scriptedProvider([{ text: 'a' }, { text: 'b' }])
    const agent = createAgent({ provider, mcpServers: [everything], behavior: { mcpToolNameSeparator: '__' } })
    await agent.run({ prompt: 'x', tools: {} })
    await agent.run({ prompt: 'y' })
    await agent.destroy()
    expect(provider.requests[0].tools).toEqual([])
    expect(provider.requests[1].tools.map(t => t.name)).toContain('mcp__everything__echo')
  }, 30_000)
})

describe('agents sharing an MCP server pool', () => {
  const counterEntry = new URL('../mcp/fixtures/counter-server.mjs', import.meta.url).pathname
  const counter = (shared?: boolean): McpServerConfig => ({ name: 'counter', transport: 'stdio', command: process.execPath, args: [counterEntry], ...(shared === undefined ? {} : { shared }) })
  const countOnce = () => scriptedProvider([
    { toolCalls: [{ name: 'mcp_counter_count', input: {} }] },
    { respond: req => ({ text: String((req.messages.at(-1)!.content[0] as { output: unknown }).output) }) },
  ])

  it('two agents on one pool talk to one process; shared: false gives each session its own', async () => {
    const pool = createMcpServerPool()
    try {
      const run = async (config: McpServerConfig) => {
        const session = await createSession({ store: createMemoryStore() })
        const agent = createAgent({ provider: countOnce(), session, mcpServers: [config], mcpPool: pool })
        const stats = await agent.run({ prompt: 'count' })
        return { agent, reply: JSON.parse(stats.text) as { count: number, pid: number } }
      }
      const a = await run(counter())
      const b = await run(counter())
      expect(b.reply).toEqual({ count: 2, pid: a.reply.pid })
      expect(pool.size).toBe(1)

      const c = await run(counter(false))
      const d = await run(counter(false))
      expect(c.reply.count).toBe(1)
      expect(d.reply.count).toBe(1)
      expect(new Set([a.reply.pid, c.reply.pid, d.reply.pid]).size).toBe(3)

      await Promise.all([a, b, c, d].map(x => x.agent.destroy()))
      expect(pool.size).toBe(0)
      expect(isAlive(a.reply.pid)).toBe(false)
    }
    finally {
      await pool.close()
    }
  }, 30_000)
})
