/**
 * `run({ profile })` through the public API: a profile is one layer of the
 * run's plan, between the agent and the run. Behavior knobs merge agent →
 * profile → run (the run's win), and so do the model catalogs; the system
 * prompt and the tools are the highest layer's that sets them, with the MCP
 * servers' tools joining a profile's.
 */

import type { AgentBehavior, AgentProfile, BehaviorPolicy } from '../../src'
import type { ChatProfile } from '../../src/chat'
import type { McpConnection, McpServerConfig } from '../../src/mcp'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { echoTool } from '../support/helpers'

/** A policy that takes no part in any run, and writes down what each run was planned with. */
function probe(seen: { behavior: Readonly<AgentBehavior>, contextWindow?: number }[]): BehaviorPolicy {
  return {
    name: 'probe',
    enabled: (behavior, run) => {
      seen.push({ behavior, contextWindow: run.contextWindow })
      return false
    },
  }
}

const reviewer: AgentProfile = {
  name: 'reviewer',
  description: 'Reads code and comments on it.',
  system: 'You review code.',
  tools: { read: echoTool('read') },
  behavior: { maxTurns: 8, mediaBudget: { maxItems: 10, maxBytes: 1_000_000 }, extensions: { tone: 'profile', depth: 'profile' } },
}

describe('run({ profile })', () => {
  it('records the profile on the session\'s run record unless the host names the run\'s agent itself', async () => {
    const session = await createSession()
    const agent = createAgent({ provider: scriptedProvider([{ text: 'a' }, { text: 'b' }, { text: 'c' }]), session })
    await agent.run({ prompt: 'one', profile: reviewer })
    await agent.run({ prompt: 'two', profile: reviewer, runAgent: { name: 'host-named', version: 2 } })
    await agent.run({ prompt: 'three' })
    expect(session.runs.map(run => run.agent)).toEqual([{ name: 'reviewer' }, { name: 'host-named', version: 2 }, undefined])
  })

  it('merges behavior agent → profile → run: the run\'s knobs win over the profile\'s, which win over the agent\'s', async () => {
    const seen: Parameters<typeof probe>[0] = []
    const provider = scriptedProvider([{ text: 'a' }, { text: 'b' }, { text: 'c' }])
    const agent = createAgent({
      provider,
      policies: [probe(seen)],
      behavior: { maxTurns: 5, hookTimeoutMs: 7_000, mediaKeepTurns: 4, extensions: { tone: 'agent', owner: 'agent' } },
    })
    await agent.run({ prompt: 'one' })
    await agent.run({ prompt: 'two', profile: reviewer })
    await agent.run({ prompt: 'three', profile: reviewer, behavior: { maxTurns: 9, extensions: { depth: 'run' } } })

    const picked = seen.map(({ behavior }) => ({ maxTurns: behavior.maxTurns, hookTimeoutMs: behavior.hookTimeoutMs, mediaKeepTurns: behavior.mediaKeepTurns, mediaBudget: behavior.mediaBudget, extensions: behavior.extensions }))
    expect(picked).toEqual([
      { maxTurns: 5, hookTimeoutMs: 7_000, mediaKeepTurns: 4, mediaBudget: undefined, extensions: { tone: 'agent', owner: 'agent' } },
      // The profile sets the media pair as one, as a run would: the agent's `mediaKeepTurns` goes.
      { maxTurns: 8, hookTimeoutMs: 7_000, mediaKeepTurns: undefined, mediaBudget: { maxItems: 10, maxBytes: 1_000_000 }, extensions: { tone: 'profile', owner: 'agent', depth: 'profile' } },
      { maxTurns: 9, hookTimeoutMs: 7_000, mediaKeepTurns: undefined, mediaBudget: { maxItems: 10, maxBytes: 1_000_000 }, extensions: { tone: 'profile', owner: 'agent', depth: 'run' } },
    ])
  })

  it('takes the system prompt and the tools of the highest layer that sets them', async () => {
    const provider = scriptedProvider([{ text: 'a' }, { text: 'b' }, { text: 'c' }])
    const agent = createAgent({ provider, system: 'You write code.', tools: { write: echoTool('write') } })
    await agent.run({ prompt: 'agent' })
    await agent.run({ prompt: 'profile', profile: reviewer })
    await agent.run({ prompt: 'run', profile: reviewer, system: 'You lint.', tools: { lint: echoTool('lint') } })

    expect(provider.requests.map(request => [request.system, request.tools.map(spec => spec.name)])).toEqual([
      ['You write code.', ['write']],
      ['You review code.', ['read']],
      ['You lint.', ['lint']],
    ])
  })

  it('keeps the agent\'s settings a profile leaves unset, and adds the MCP servers\' tools to a profile\'s own', async () => {
    const connection: McpConnection = {
      tools: { mcp__db__query: { ...echoTool('mcp__db__query'), mcp: { server: 'db', tool: 'query' } } },
      aliases: { mcp__db__query: 'mcp_db_query' },
      origins: { mcp__db__query: { server: 'db', tool: 'query' } },
      servers: [{ name: 'db', status: 'connected', tools: ['query'] }],
      close: async () => {},
    }
    const servers: McpServerConfig[] = [{ name: 'db', transport: 'stdio', command: 'unused' }]
    const provider = scriptedProvider([{ text: 'a' }])
    const agent = createAgent({ provider, system: 'You write code.', tools: { write: echoTool('write') }, mcpServers: servers, mcpConnector: async () => connection })
    const toolsOnly: AgentProfile = { name: 'reader', tools: { read: echoTool('read') } }
    await agent.run({ prompt: 'go', profile: toolsOnly })
    await agent.destroy()

    expect(provider.requests[0].system).toBe('You write code.')
    expect(provider.requests[0].tools.map(spec => spec.name)).toEqual(['read', 'mcp_db_query'])
  })

  it('layers the model catalogs the same way, for the window the run reads', async () => {
    const seen: Parameters<typeof probe>[0] = []
    const provider = scriptedProvider([{ text: 'a' }, { text: 'b' }, { text: 'c' }], { name: 'acme', defaultModel: 'acme-1' })
    const agent = createAgent({ provider, policies: [probe(seen)], behavior: { modelCatalog: { 'acme:acme-1': { contextWindow: 1_000 } } } })
    const wide: AgentProfile = { name: 'wide', behavior: { modelCatalog: { 'acme:acme-1': { contextWindow: 2_000 } } } }
    await agent.run({ prompt: 'agent' })
    await agent.run({ prompt: 'profile', profile: wide })
    await agent.run({ prompt: 'run', profile: wide, behavior: { modelCatalog: { 'acme:acme-1': { contextWindow: 3_000 } } } })

    expect(seen.map(entry => entry.contextWindow)).toEqual([1_000, 2_000, 3_000])
  })

  it('works the same through agent.stream(), and a chat profile is a profile', async () => {
    const provider = scriptedProvider([{ text: 'streamed' }])
    const agent = createAgent({ provider, system: 'You write code.' })
    const chat: ChatProfile = { name: 'terse', system: 'Answer in one word.', behavior: { maxTurns: 2 } }
    const stream = agent.stream({ prompt: 'go', profile: chat })
    for await (const _event of stream) { /* read to the end */ }
    expect((await stream.result).text).toBe('streamed')
    expect(provider.requests[0].system).toBe('Answer in one word.')
  })
})
