import type { McpConnection, McpServerConfig } from '../../src/mcp'
import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import * as root from '../../src'
import { createAgent } from '../../src'
import * as errors from '../../src/errors'
import { AgentLengthResumeExhaustedError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { echoTool, wait } from '../support/helpers'

describe('maxConsecutiveLengthResumes counts continuations of turns with visible text', () => {
  const cut = (text: string): ScriptedTurn => ({ text, finishReason: 'length' })
  const empty: ScriptedTurn = { thinking: 'hmm', finishReason: 'length' }

  it('an empty cut-off turn between two text ones neither counts toward the cap nor resets it', async () => {
    const provider = scriptedProvider([cut('a'), empty, cut('b'), cut('c'), { text: 'done' }])
    const stats = await createAgent({ provider, behavior: { resumeOnMaxTokens: true, maxConsecutiveLengthResumes: 2 } }).run({ prompt: 'write' })
    // a (resume 1), empty (not counted), b (resume 2), c: the cap is reached.
    expect(stats.stopReason).toBe('length-exhausted')
    expect(provider.requests).toHaveLength(4)
    expect(stats.turnUsage?.at(-1)?.finishReason).toBe('length')
  })

  it('whitespace is not visible text: two such cut-off turns in a row fail the run', async () => {
    const provider = scriptedProvider([cut('a'), cut('  \n'), cut('\t'), { text: 'done' }])
    const error = await createAgent({ provider, behavior: { resumeOnMaxTokens: true } }).run({ prompt: 'write' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentLengthResumeExhaustedError)
    expect(provider.requests).toHaveLength(3)
  })
})

describe('the root entry and tool hook contexts', () => {
  it('exports AgentLengthResumeExhaustedError, the same class as zidane/errors', () => {
    expect(root.AgentLengthResumeExhaustedError).toBe(errors.AgentLengthResumeExhaustedError)
  })

  it('omits depth from tool hook contexts at the top level and sets it in a subagent run', async () => {
    const seen: { event: string, hasDepth: boolean, depth?: number }[] = []
    const record = (event: string) => (ctx: { depth?: number }) => void seen.push({ event, hasDepth: 'depth' in ctx, depth: ctx.depth })
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'echo', input: {} }] },
      { text: 'top done' },
      { toolCalls: [{ name: 'echo', input: {} }] },
      { text: 'child done' },
    ])
    const hooks = { 'tool:gate': record('gate'), 'tool:before': record('before'), 'tool:transform': record('transform'), 'tool:after': record('after') }
    const agent = createAgent({ provider, tools: { echo: echoTool('echo') }, hooks })

    await agent.run({ prompt: 'top' })
    expect(seen.map(s => s.event)).toEqual(['gate', 'before', 'transform', 'after'])
    expect(seen.every(s => !s.hasDepth)).toBe(true)

    seen.length = 0
    await agent.run({ prompt: 'child', depth: 2 })
    expect(seen.map(s => s.depth)).toEqual([2, 2, 2, 2])
  })
})

describe('the run clock starts when run() is called', () => {
  const servers: McpServerConfig[] = [{ name: 'slow', transport: 'stdio', command: 'unused' }]
  const emptyConnection = (): McpConnection => ({ tools: {}, aliases: {}, origins: {}, servers: [], close: async () => {} })

  it('elapsed and time to first token include the MCP connect', async () => {
    const provider = scriptedProvider([{ text: 'hi' }])
    const agent = createAgent({
      provider,
      mcpServers: servers,
      mcpConnector: async () => {
        await wait(150)
        return emptyConnection()
      },
    })
    const stats = await agent.run({ prompt: 'x' })
    expect(stats.elapsed).toBeGreaterThanOrEqual(150)
    expect(stats.timeTillFirstTokenMs).toBeGreaterThanOrEqual(150)
    await agent.destroy()
  })

  it('maxWallMs counts the MCP connect: a connect that never settles fails the run with the wall-clock budget error', async () => {
    const provider = scriptedProvider([{ text: 'never' }])
    const agent = createAgent({ provider, mcpServers: servers, mcpConnector: () => new Promise(() => {}), behavior: { maxWallMs: 100, mcpConnectTimeoutMs: 60_000 } })
    const error = await agent.run({ prompt: 'x' }).catch(e => e)
    expect(error).toBeInstanceOf(errors.AgentBudgetExceededError)
    expect((error as errors.AgentBudgetExceededError).limit).toBe('wallClock')
    expect(provider.requests).toHaveLength(0)
    await agent.destroy()
  })
})

describe('the MCP knobs of each run', () => {
  const servers: McpServerConfig[] = [{ name: 'calc', transport: 'stdio', command: 'unused' }]
  const add = echoTool('mcp__calc__add')
  const connection = (separator: '_' | '__' = '_'): McpConnection => ({
    tools: { mcp__calc__add: add },
    aliases: { mcp__calc__add: separator === '_' ? 'mcp_calc_add' : 'mcp__calc__add' },
    origins: { mcp__calc__add: { server: 'calc', tool: 'add' } },
    servers: [],
    close: async () => {},
  })

  it('a later run\'s mcpToolNameSeparator names the tools of the shared connection', async () => {
    const provider = scriptedProvider([{ text: 'a' }, { text: 'b' }, { text: 'c' }])
    let connects = 0
    const agent = createAgent({
      provider,
      mcpServers: servers,
      mcpConnector: async (_servers, options) => {
        connects++
        return connection(options.toolNameSeparator)
      },
    })
    await agent.run({ prompt: 'x' })
    await agent.run({ prompt: 'y', behavior: { mcpToolNameSeparator: '__' } })
    await agent.run({ prompt: 'z' })
    await agent.destroy()
    expect(connects).toBe(1)
    expect(provider.requests.map(r => r.tools.map(t => t.name))).toEqual([['mcp_calc_add'], ['mcp__calc__add'], ['mcp_calc_add']])
  })

  it('connection-level hooks are bounded by the latest run\'s hookTimeoutMs', async () => {
    const provider = scriptedProvider([{ text: 'a' }, { text: 'b' }])
    let filter: ((ctx: { server: string, tools: never[] }) => Promise<void>) | undefined
    const agent = createAgent({
      provider,
      mcpServers: servers,
      hooks: { 'mcp:tools:filter': () => new Promise(() => {}) },
      mcpConnector: async (_servers, options) => {
        filter = options.onToolsFilter as typeof filter
        return connection()
      },
    })
    await agent.run({ prompt: 'x', behavior: { hookTimeoutMs: 60_000 } })
    await agent.run({ prompt: 'y', behavior: { hookTimeoutMs: 20 } })
    // A lazy server connecting now reports its tools through the hook: the bound is the last run's.
    await expect(filter!({ server: 'calc', tools: [] })).rejects.toThrow(/did not settle within 20 ms/)
    await agent.destroy()
  })
})
