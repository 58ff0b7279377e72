import type { ProtectedMcpServer, TestAuthServer } from '../mcp/oauth-support'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createProcessContext } from '../../src/contexts/process'
import { connectMcpServers, createMemoryMcpCredentialStore, mcpCredentialKey } from '../../src/mcp'
import { scriptedProvider } from '../../src/testing'
import { createSpawnTool } from '../../src/tools'
import { browser, startAuthServer, startProtectedMcpServer } from '../mcp/oauth-support'
import { startHttpMcpServer } from '../mcp/support'

// The agent's side of the MCP features that live in `zidane/mcp`: the hooks
// and options an agent bridges to `connectMcpServers`.

function addThenEcho() {
  return scriptedProvider([
    { toolCalls: [{ name: 'mcp_calc_add', input: { a: 2, b: 3 } }] },
    { respond: req => ({ text: String((req.messages.at(-1)!.content[0] as { output: unknown }).output) }) },
  ])
}

describe('an agent with an OAuth MCP server', () => {
  let auth: TestAuthServer
  let server: ProtectedMcpServer
  beforeAll(async () => {
    auth = await startAuthServer()
    server = await startProtectedMcpServer(auth)
  })
  afterAll(async () => {
    await server.close()
    await auth.close()
  })

  it('logs in through mcp:auth:required, keeps the tokens in mcpCredentialStore, and reuses them', async () => {
    const user = browser()
    const store = createMemoryMcpCredentialStore()
    const config = { name: 'calc', transport: 'streamable-http' as const, url: server.url, auth: 'oauth' as const }
    const provider = addThenEcho()
    const agent = createAgent({ provider, mcpServers: [config], mcpCredentialStore: store, hooks: { 'mcp:auth:required': user.onAuthRequired } })
    const stats = await agent.run({ prompt: '2 + 3' })
    await agent.destroy()
    expect(stats.text).toBe('5')
    expect(user.seen).toHaveLength(1)
    expect(user.seen[0].authorizationUrl).toContain('/authorize?')
    const stored = await store.load(mcpCredentialKey({ name: 'calc', url: server.url }))
    expect(stored?.tokens?.access_token).toBeTruthy()

    // A second agent on the same store needs no login.
    const again = createAgent({ provider: addThenEcho(), mcpServers: [config], mcpCredentialStore: store, hooks: { 'mcp:auth:required': user.onAuthRequired } })
    expect((await again.run({ prompt: '2 + 3' })).text).toBe('5')
    await again.destroy()
    expect(user.seen).toHaveLength(1)
  }, 30_000)

  it('without a mcp:auth:required listener the server fails at once and the run goes on without its tools', async () => {
    const provider = scriptedProvider([{ text: 'no tools' }])
    const agent = createAgent({ provider, mcpServers: [{ name: 'calc', transport: 'streamable-http', url: server.url, auth: 'oauth' }] })
    const stats = await agent.run({ prompt: 'x' })
    await agent.destroy()
    expect(stats.text).toBe('no tools')
    expect(provider.requests[0].tools).toEqual([])
  }, 30_000)
})

describe('an agent with a scope: \'context\' MCP server', () => {
  let root: string
  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'zidane-agent-ctx-')))
  })
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
  })

  it('spawns the server through the agent\'s execution context', async () => {
    const probe = fileURLToPath(new URL('../mcp/fixtures/probe-server.mjs', import.meta.url))
    const execution = createProcessContext({ cwd: root, env: { ZIDANE_FROM_CONTEXT: 'yes' } })
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'mcp_probe_probe', input: {} }] },
      { respond: req => ({ text: String((req.messages.at(-1)!.content[0] as { output: unknown }).output) }) },
    ])
    const agent = createAgent({
      provider,
      execution,
      mcpServers: [{ name: 'probe', transport: 'stdio', scope: 'context', command: process.execPath, args: [probe] }],
    })
    const stats = await agent.run({ prompt: 'where?' })
    await agent.destroy()
    const report = JSON.parse(stats.text) as { cwd: string, env: Record<string, string> }
    expect(report.cwd).toBe(root)
    expect(report.env.ZIDANE_FROM_CONTEXT).toBe('yes')
  }, 30_000)
})

describe('a subagent with MCP tools', () => {
  it('uses a connection the host made, passed as the child\'s tools and aliases', async () => {
    const calc = await startHttpMcpServer()
    const mcp = await connectMcpServers([{ name: 'calc', transport: 'streamable-http', url: calc.url, enabledTools: ['add'] }])
    try {
      const childProvider = addThenEcho()
      const spawn = createSpawnTool({ child: { provider: childProvider, tools: mcp.tools, toolAliases: mcp.aliases } })
      const parent = scriptedProvider([
        { toolCalls: [{ name: 'spawn', input: { task: 'add 2 and 3' } }] },
        { respond: req => ({ text: `child said ${String((req.messages.at(-1)!.content[0] as { output: unknown }).output)}` }) },
      ])
      const agent = createAgent({ provider: parent, tools: { spawn } })
      const stats = await agent.run({ prompt: 'delegate' })
      await agent.destroy()
      expect(stats.text).toBe('child said 5')
      expect(childProvider.requests[0].tools.map(t => t.name)).toEqual(['mcp_calc_add'])
    }
    finally {
      await mcp.close()
      await calc.close()
    }
  }, 30_000)
})
