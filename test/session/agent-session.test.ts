import type { SessionTurn } from '../../src/core/content'
import type { SessionStore } from '../../src/session/types'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentBudgetExceededError, AgentProviderError } from '../../src/errors'
import { createSession, loadSession } from '../../src/session'
import { createMemoryStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'

const echo = {
  spec: { name: 'echo', description: 'Echo the text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  execute: ({ text }: { text: string }) => `echo: ${text}`,
}

/** A memory store that records each appendTurns batch. */
function recordingStore(): { store: SessionStore, batches: SessionTurn[][] } {
  const inner = createMemoryStore()
  const batches: SessionTurn[][] = []
  return {
    batches,
    store: {
      ...inner,
      // The write options name the lease holder: a wrapper passes them on.
      appendTurns: async (id, turns, write) => {
        batches.push([...turns])
        await inner.appendTurns(id, turns, write)
      },
    },
  }
}

function pairedInOrder(turns: readonly SessionTurn[]): boolean {
  for (let i = 0; i < turns.length; i++) {
    const calls = turns[i].content.filter(b => b.type === 'tool_call').map(b => (b as { id: string }).id)
    if (calls.length === 0)
      continue
    const next = turns[i + 1]
    const results = next?.content.filter(b => b.type === 'tool_result').map(b => (b as { callId: string }).callId) ?? []
    if (JSON.stringify(results) !== JSON.stringify(calls))
      return false
  }
  return true
}

describe('a run records into its session', () => {
  it('stores the prompt before the model is called, then each tool call together with its result', async () => {
    const { store, batches } = recordingStore()
    const session = await createSession({ store })
    let batchesWhenModelCalled = -1
    const provider = scriptedProvider([
      { respond: () => {
        batchesWhenModelCalled = batches.length
        return { toolCalls: [{ name: 'echo', input: { text: 'a' } }] }
      } },
      { text: 'done' },
    ])
    const stats = await createAgent({ provider, tools: { echo }, session }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    expect(batchesWhenModelCalled).toBe(1)
    expect(batches.map(batch => batch.map(turn => turn.role))).toEqual([['user'], ['assistant', 'user'], ['assistant']])
    const stored = (await store.load(session.id))!
    expect(stored.turns).toHaveLength(4)
    expect(pairedInOrder(stored.turns)).toBe(true)
    expect(stored.turns.every(turn => turn.runId === stored.runs[0].id)).toBe(true)
  })

  it('with persistTurns: false writes the generated turns once, at the end', async () => {
    const { store, batches } = recordingStore()
    const session = await createSession({ store })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'echo', input: { text: 'a' } }] }, { text: 'done' }])
    await createAgent({ provider, tools: { echo }, session, behavior: { persistTurns: false } }).run({ prompt: 'go' })
    expect(batches.map(batch => batch.length)).toEqual([1, 3])
  })

  it('writes what a failed run did, and records the run as errored', async () => {
    const { store, batches } = recordingStore()
    const session = await createSession({ store })
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'echo', input: { text: 'a' } }] },
      { error: { kind: 'auth', message: 'bad key' } },
    ])
    const agent = createAgent({ provider, tools: { echo }, session, behavior: { persistTurns: false } })
    await expect(agent.run({ prompt: 'go' })).rejects.toBeInstanceOf(AgentProviderError)
    expect(batches.flat()).toHaveLength(3)
    const run = (await store.load(session.id))!.runs[0]
    expect(run).toMatchObject({ status: 'error', error: { name: 'AgentProviderError' } })
  })

  it('records run status, stop reason, usage, label and agent; a budget stop is recorded as aborted', async () => {
    const session = await createSession()
    const agent = createAgent({ provider: scriptedProvider([{ text: 'hi', usage: { input: 7, output: 3, cost: 0.5 } }]), session })
    await agent.run({ prompt: 'go', runLabel: 'child-1', runAgent: { name: 'reviewer' } })
    expect(session.runs[0]).toMatchObject({ status: 'completed', stopReason: 'completed', label: 'child-1', agent: { name: 'reviewer' }, usage: { input: 7, output: 3, turns: 1, cost: 0.5 } })
    expect(session.runs[0].endedAt).toBeGreaterThanOrEqual(session.runs[0].startedAt)

    const costly = createAgent({ provider: scriptedProvider([{ text: 'pricey', usage: { input: 1, output: 1, cost: 5 } }]), session, behavior: { maxCostUsd: 1 } })
    await expect(costly.run({ prompt: 'again' })).rejects.toBeInstanceOf(AgentBudgetExceededError)
    expect(session.runs[1]).toMatchObject({ status: 'aborted' })
  })

  it('fires session:start, session:turns and session:end', async () => {
    const session = await createSession()
    const events: string[] = []
    const agent = createAgent({
      provider: scriptedProvider([{ text: 'hi' }]),
      session,
      hooks: {
        'session:start': ({ sessionId }) => void events.push(`start:${sessionId === session.id}`),
        'session:turns': ({ turns }) => void events.push(`turns:${turns.length}`),
        'session:end': ({ status, stopReason }) => void events.push(`end:${status}:${stopReason}`),
      },
    })
    await agent.run({ prompt: 'go' })
    expect(events).toEqual(['start:true', 'turns:1', 'turns:1', 'end:completed:completed'])
  })
})

describe('continuing a session', () => {
  it('a later run (even on a new agent) sees the earlier turns; run() without a prompt continues', async () => {
    const store = createMemoryStore()
    const first = await createSession({ store })
    await createAgent({ provider: scriptedProvider([{ text: 'first answer' }]), session: first }).run({ prompt: 'one' })

    const loaded = await loadSession(first.id, { store })
    const provider = scriptedProvider([{ text: 'second answer' }])
    await createAgent({ provider, session: loaded }).run({ prompt: 'two' })
    expect(provider.requests[0].messages.map(m => m.role)).toEqual(['user', 'assistant', 'user'])

    // Nothing to continue: the conversation ends with an answer.
    const idle = scriptedProvider([])
    const stats = await createAgent({ provider: idle, session: loaded }).run()
    expect(stats).toMatchObject({ stopReason: 'completed', turns: 0, text: 'second answer' })
    expect(idle.requests).toHaveLength(0)
  })

  it('continues after tool results without a new prompt', async () => {
    const session = await createSession()
    await session.appendTurns([
      { id: 't1', role: 'user', content: [{ type: 'text', text: 'go' }], createdAt: 1 },
      { id: 't2', role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'echo', input: { text: 'x' } }], createdAt: 2 },
      { id: 't3', role: 'user', content: [{ type: 'tool_result', callId: 'c1', output: 'echo: x' }], createdAt: 3 },
    ])
    const provider = scriptedProvider([{ text: 'finished' }])
    const stats = await createAgent({ provider, tools: { echo }, session }).run()
    expect(stats.text).toBe('finished')
    expect(provider.requests[0].messages).toHaveLength(3)
  })

  it('drops a tool call that never got its result (a crash mid-tool) so the model is asked again', async () => {
    const session = await createSession()
    await session.appendTurns([
      { id: 't1', role: 'user', content: [{ type: 'text', text: 'go' }], createdAt: 1 },
      { id: 't2', role: 'assistant', content: [{ type: 'text', text: 'calling' }, { type: 'tool_call', id: 'c1', name: 'echo', input: { text: 'x' } }], createdAt: 2 },
    ])
    const provider = scriptedProvider([{ text: 'retried' }])
    await createAgent({ provider, tools: { echo }, session }).run()
    const sent = JSON.stringify(provider.requests[0].messages)
    expect(sent).not.toContain('"c1"')
  })

  it('resumeRunId seeds only that run\'s turns and records where it resumed from', async () => {
    const session = await createSession()
    await createAgent({ provider: scriptedProvider([{ text: 'A1' }]), session }).run({ prompt: 'task A' })
    await createAgent({ provider: scriptedProvider([{ text: 'B1' }]), session }).run({ prompt: 'task B' })
    const runA = session.runs[0].id

    const provider = scriptedProvider([{ text: 'A2' }])
    await createAgent({ provider, session }).run({ prompt: 'continue A', resumeRunId: runA })
    const texts = provider.requests[0].messages.map(m => (m.content[0] as { text: string }).text)
    expect(texts).toEqual(['task A', 'A1', 'continue A'])
    expect(session.runs[2].resumedFromRunId).toBe(runA)

    const agent = createAgent({ provider: scriptedProvider([]), session })
    await expect(agent.run({ resumeRunId: runA })).rejects.toThrow(/needs a prompt/)
    await expect(agent.run({ prompt: 'x', resumeRunId: 'nope' })).rejects.toThrow(/no recorded turns/)
  })
})
