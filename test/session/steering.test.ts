import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { MessageQueue } from '../../src/agent/message-queue'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'

const textOf = (content: readonly unknown[]) => (content as { type: string, text?: string }[]).filter(b => b.type === 'text').map(b => b.text).join('|')

describe('steering', () => {
  it('a message steered during a tool call joins before the next model call, announced with its id', async () => {
    const injected: { kind: string, id?: string }[] = []

    let agent: ReturnType<typeof createAgent>
    const slow = {
      spec: { name: 'slow', description: 'slow', inputSchema: { type: 'object' } },
      execute: async () => {
        agent.steer('Also check the tests.', { id: 'msg-7' })
        return 'ok'
      },
    }
    const provider = scriptedProvider([{ toolCalls: [{ name: 'slow', input: {} }] }, { text: 'done' }])
    agent = createAgent({ provider, tools: { slow }, hooks: { 'steer:inject': ({ kind, id }) => void injected.push({ kind, id }) } })
    await agent.run({ prompt: 'go' })

    const messages = provider.requests[1].messages
    expect(messages.map(m => m.role)).toEqual(['user', 'assistant', 'user', 'user'])
    expect(textOf(messages[3].content)).toBe('Also check the tests.')
    expect(injected).toEqual([{ kind: 'steer', id: 'msg-7' }])
  })

  it('a steered message keeps a run going that would have ended, and idle steering joins the next run after its prompt', async () => {
    const provider = scriptedProvider([{ text: 'first' }, { text: 'second' }])
    const agent = createAgent({ provider })
    agent.hooks.hook('stream:text', ({ delta }) => {
      if (delta === 'first')
        agent.steer('one more thing')
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('second')
    expect(stats.turns).toBe(2)

    agent.steer('queued while idle', { systemNotes: [{ kind: 'mode', text: 'Mode: review' }] })
    const next = scriptedProvider([{ text: 'ok' }])
    const fresh = createAgent({ provider: next })
    fresh.steer('queued while idle')
    await fresh.run({ prompt: 'prompt' })
    expect(next.requests[0].messages.map(m => textOf(m.content))).toEqual(['prompt', 'queued while idle'])
  })

  it('steered system notes become marked text blocks after the message', async () => {
    const provider = scriptedProvider([{ text: 'ok' }])
    const agent = createAgent({ provider })
    agent.steer('hello', { systemNotes: [{ kind: 'mode', id: 'm1', text: 'Mode: review' }] })
    await agent.run({ prompt: 'p' })
    expect(provider.requests[0].messages[1].content).toEqual([
      { type: 'text', text: 'hello' },
      { type: 'text', text: 'Mode: review', origin: 'system-note', systemNote: { kind: 'mode', id: 'm1' } },
    ])
  })

  it('a follow-up waits until the run would end, then continues it', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 't', input: {} }] }, { text: 'answer' }, { text: 'after follow-up' }])
    const t = { spec: { name: 't', description: 't', inputSchema: { type: 'object' } }, execute: () => 'r' }
    const agent = createAgent({ provider, tools: { t } })
    agent.followUp('now summarize')
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('after follow-up')
    // The follow-up did not interrupt the tool turn: it came after the answer.
    expect(provider.requests[2].messages.map(m => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user'])
    expect(textOf(provider.requests[2].messages[4].content)).toBe('now summarize')
  })
})

describe('pauseSignal', () => {
  it('stops at the next turn boundary with tool results saved; a later run continues', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const t = {
      spec: { name: 't', description: 't', inputSchema: { type: 'object' } },
      execute: () => {
        pause.abort()
        return 'tool ran'
      },
    }
    const provider = scriptedProvider([{ toolCalls: [{ name: 't', input: {} }] }])
    const stats = await createAgent({ provider, tools: { t }, session }).run({ prompt: 'go', pauseSignal: pause.signal })
    expect(stats).toMatchObject({ stopReason: 'paused', paused: true, turns: 1 })
    expect(session.turns.map(turn => turn.role)).toEqual(['user', 'assistant', 'user'])
    expect(session.turns[2].content[0]).toMatchObject({ type: 'tool_result', output: 'tool ran' })

    const next = scriptedProvider([{ text: 'resumed' }])
    const resumed = await createAgent({ provider: next, tools: { t }, session }).run()
    expect(resumed.text).toBe('resumed')
    expect(next.requests[0].messages).toHaveLength(3)
  })
})

describe('messageQueue', () => {
  it('is first in, first out across many pushes and shifts', () => {
    const queue = new MessageQueue<number>()
    for (let i = 0; i < 100; i++) queue.push(i)
    const out: number[] = []
    for (let i = 0; i < 60; i++) out.push(queue.shift()!)
    for (let i = 100; i < 150; i++) queue.push(i)
    while (queue.size > 0) out.push(queue.shift()!)
    expect(out).toEqual(Array.from({ length: 150 }, (_, i) => i))
    expect(queue.shift()).toBeUndefined()
  })
})
