import type { ToolDef } from '../../src'
import type { ToolStateOp } from '../../src/tool-state'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { createMemoryToolStateStore } from '../../src/tool-state'

const counter: ToolDef = {
  spec: { name: 'count', description: 'Increment a counter', inputSchema: { type: 'object', properties: { fail: { type: 'boolean' } } } },
  execute: (input: { fail?: boolean }, ctx) => {
    const next = (ctx.state.get<number>('count') ?? 0) + 1
    ctx.state.set('count', next)
    if (input.fail)
      throw new Error('failed after writing')
    return String(next)
  },
}

const calls = (...inputs: Record<string, unknown>[]) => ({ toolCalls: inputs.map(input => ({ name: 'count', input })) })

describe('tool state', () => {
  it('commits a successful call, discards a failed one, and keeps state across runs', async () => {
    const provider = scriptedProvider([calls({}), calls({ fail: true }), { text: 'one' }, calls({}), { text: 'two' }])
    const agent = createAgent({ provider, tools: { counter } })
    await agent.run({ prompt: 'go' })
    expect(agent.toolState.get('count')).toBe(1)
    await agent.run({ prompt: 'again' })
    expect(agent.toolState.get('count')).toBe(2)
    expect(agent.toolState.keys()).toEqual(['count'])
  })

  it('loads from the store before the first tool runs and commits each call\'s writes to it', async () => {
    const store = createMemoryToolStateStore({ initial: { count: 41 } })
    const committed: ToolStateOp[][] = []
    const recording = { ...store, load: store.load, commit: async (ops: readonly ToolStateOp[]) => {
      committed.push([...ops])
      await store.commit(ops)
    } }
    const provider = scriptedProvider([calls({}), { respond: req => ({ text: String((req.messages.at(-1)!.content[0] as { output: string }).output) }) }])
    const stats = await createAgent({ provider, tools: { counter }, toolState: recording }).run({ prompt: 'go' })
    expect(stats.text).toBe('42')
    expect(committed).toEqual([[{ key: 'count', value: 42 }]])
  })

  it('reports a failed commit on tool-state:commit-failed without failing the call', async () => {
    const failing = { load: () => ({}), commit: () => Promise.reject(new Error('disk full')) }
    const failures: { error: string, ops: readonly ToolStateOp[] }[] = []
    const provider = scriptedProvider([calls({}), { text: 'done' }])
    const agent = createAgent({
      provider,
      tools: { counter },
      toolState: failing,
      hooks: { 'tool-state:commit-failed': ({ error, ops }) => void failures.push({ error: (error as Error).message, ops }) },
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(failures).toEqual([{ error: 'disk full', ops: [{ key: 'count', value: 1 }] }])
    expect(provider.requests[1].messages.at(-1)!.content[0]).toMatchObject({ output: '1' })
    expect(agent.toolState.get('count')).toBeUndefined()
  })
})
