import type { ToolHookContext } from '../../src/hooks/hook-map'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { blocksOfType, echoTool, runCapturingTurns } from '../support/helpers'

const tools = { read: echoTool('read_file'), other: echoTool('other') }
const toolAliases = { read_file: 'Read' }

describe('toolAliases', () => {
  it('sends the alias as the tool name', async () => {
    const provider = scriptedProvider([{ text: 'x' }])
    await createAgent({ provider, tools, toolAliases }).run({ prompt: 'p' })
    expect(provider.requests[0].tools.map(t => t.name)).toEqual(['Read', 'other'])
    expect(provider.requests[0].tools[0].description).toBe('read_file tool')
  })

  it('runs the tool when the model calls the alias, and replays the call under the alias', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'Read', input: { path: 'a' }, id: 'r1' }] }, { text: 'x' }])
    const hookNames: Pick<ToolHookContext, 'name' | 'displayName'>[] = []
    const agent = createAgent({ provider, tools, toolAliases })
    for (const hook of ['tool:gate', 'tool:before', 'tool:transform', 'tool:after'] as const)
      agent.hooks.hook(hook, (ctx: ToolHookContext) => void hookNames.push({ name: ctx.name, displayName: ctx.displayName }))
    await agent.run({ prompt: 'p' })

    const replay = provider.requests[1].messages
    expect(blocksOfType(replay, 'tool_call')).toEqual([{ type: 'tool_call', id: 'r1', name: 'Read', input: { path: 'a' } }])
    expect(blocksOfType(replay, 'tool_result')[0]).toMatchObject({ callId: 'r1', output: 'read_file:{"path":"a"}' })
    expect(hookNames).toHaveLength(4)
    for (const names of hookNames)
      expect(names).toEqual({ name: 'read_file', displayName: 'Read' })
  })

  it('records canonical names in the conversation and shows them to turn hooks', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'Read', input: {}, id: 'r1' }] }, { text: 'x' }])
    const streamEnd: string[] = []
    const turnAfter: string[] = []
    const { turns } = await runCapturingTurns({
      provider,
      tools,
      toolAliases,
      hooks: {
        'stream:end': ctx => void streamEnd.push(...blocksOfType([ctx], 'tool_call').map(b => b.name)),
        'turn:after': ctx => void turnAfter.push(...blocksOfType([ctx.assistant], 'tool_call').map(b => b.name)),
      },
    }, { prompt: 'p' })
    expect(blocksOfType(turns, 'tool_call').map(b => b.name)).toEqual(['read_file'])
    expect(turnAfter).toEqual(['read_file'])
    expect(streamEnd).toEqual(['read_file'])
  })

  it('still resolves the canonical name when the model uses it', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'read_file', input: {}, id: 'r1' }] }, { text: 'x' }])
    await createAgent({ provider, tools, toolAliases }).run({ prompt: 'p' })
    const result = blocksOfType(provider.requests[1].messages, 'tool_result')[0]
    expect(result.isError).toBeUndefined()
    expect(result.output).toBe('read_file:{}')
    expect(blocksOfType(provider.requests[1].messages, 'tool_call')[0].name).toBe('Read')
  })

  it('lists aliases in the unknown-tool error', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'write', input: {} }] }, { text: 'x' }])
    await createAgent({ provider, tools, toolAliases }).run({ prompt: 'p' })
    expect(blocksOfType(provider.requests[1].messages, 'tool_result')[0].output).toContain('Available tools: Read, other.')
  })

  it('throws at createAgent when an alias collides with another tool name', () => {
    expect(() => createAgent({ provider: scriptedProvider(), tools, toolAliases: { read_file: 'other' } })).toThrow(/collides/)
  })

  it('throws at createAgent when two tools share one alias', () => {
    expect(() => createAgent({ provider: scriptedProvider(), tools, toolAliases: { read_file: 'X', other: 'X' } })).toThrow(/used for both/)
  })

  it('throws at createAgent on duplicate tool names', () => {
    expect(() => createAgent({ provider: scriptedProvider(), tools: { one: echoTool('same'), two: echoTool('same') } })).toThrow(/share the name "same"/)
  })

  it('throws at createAgent on a tool without a name', () => {
    expect(() => createAgent({ provider: scriptedProvider(), tools: { bad: echoTool('') } })).toThrow(TypeError)
  })

  it('applies the agent aliases to run-level tools', async () => {
    const provider = scriptedProvider([{ text: 'x' }])
    await createAgent({ provider, toolAliases }).run({ prompt: 'p', tools: { read: echoTool('read_file') } })
    expect(provider.requests[0].tools.map(t => t.name)).toEqual(['Read'])
  })
})
