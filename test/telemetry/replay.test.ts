import type { RunEffects, ToolDef } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { testEffects } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { otelHarness, spansNamed } from './otel-harness'

/**
 * A durable runtime in miniature: model and tool results are journaled in
 * the order they happen; a replay answers them from the journal without
 * calling what it was handed, as a durable engine does for steps it has.
 */
function journaledEffects(journal: unknown[]): RunEffects {
  const base = testEffects()
  let next = 0
  const step = async <T>(exec: () => Promise<T>): Promise<T> => {
    if (next < journal.length)
      return journal[next++] as T
    const value = await exec()
    journal.push(value)
    next++
    return value
  }
  return { ...base, model: (_kind, _request, exec) => step(exec), tool: (_call, exec) => step(exec) }
}

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

describe('a durable replay', () => {
  it('emits no span for a step its journal answers, and spans for the steps it executes', async () => {
    let runs = 0
    const counted: ToolDef = {
      spec: { name: 'counted', description: 'counts its runs', inputSchema: { type: 'object' } },
      execute: () => `run ${++runs}`,
    }
    const journal: unknown[] = []
    const provider = anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-test' })

    // The first execution: every step runs, and each has its span.
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'counted', input: {} }] } },
      { type: 'turn', turn: { text: 'done' } },
    )
    const first = otelHarness()
    await createAgent({ provider, tools: { counted }, effects: journaledEffects(journal), telemetry: { tracer: first.tracer } }).run({ prompt: 'go' })
    expect(journal).toHaveLength(3)
    expect(spansNamed(first.spans(), 'chat ')).toHaveLength(2)
    expect(spansNamed(first.spans(), 'execute_tool ')).toHaveLength(1)

    // The replay: the journal answers every step; nothing is called again, and nothing is reported twice.
    const requestsBefore = fake.requests.length
    const replay = otelHarness()
    const stats = await createAgent({ provider, tools: { counted }, effects: journaledEffects(journal), telemetry: { tracer: replay.tracer } }).run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    expect(runs).toBe(1)
    expect(fake.requests.length).toBe(requestsBefore)
    expect(replay.spans().map(span => span.name)).toEqual(['invoke_agent zidane'])

    // A replay that runs out of journal executes the rest, with spans for what it executes only.
    const partial = journal.slice(0, 1)
    fake.enqueue({ type: 'turn', turn: { text: 'done again' } })
    const resumed = otelHarness()
    await createAgent({ provider, tools: { counted }, effects: journaledEffects(partial), telemetry: { tracer: resumed.tracer } }).run({ prompt: 'go' })
    expect(runs).toBe(2)
    expect(spansNamed(resumed.spans(), 'chat ')).toHaveLength(1)
    expect(spansNamed(resumed.spans(), 'execute_tool ')).toHaveLength(1)
  })
})
