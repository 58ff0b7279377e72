import type { DecisionQuestions, ToolDef } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_TOOL_NAME } from '@opentelemetry/semantic-conventions/incubating'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { createSession, loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { createSpawnTool } from '../../src/tools/spawn'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { echoTool } from '../support/helpers'
import { otelHarness, parentOf, spansNamed } from './otel-harness'

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

const provider = () => anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-test' })

describe('span parents', () => {
  it('a nested call (ToolContext.callTool) is a child of the call whose tool made it', async () => {
    const otel = otelHarness()
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_outer', name: 'router', input: {} }] } },
      { type: 'turn', turn: { text: 'done' } },
    )
    const router: ToolDef = {
      spec: { name: 'router', description: 'calls lookup twice', inputSchema: { type: 'object' } },
      async execute(_input, ctx) {
        const first = await ctx.callTool('lookup', { n: 1 })
        const second = await ctx.callTool('lookup', { n: 2 })
        return `${first.output} ${second.output}`
      },
    }
    const agent = createAgent({ provider: provider(), tools: { router, lookup: echoTool('lookup') }, telemetry: { tracer: otel.tracer } })
    await agent.run({ prompt: 'go' })
    const tools = spansNamed(otel.spans(), 'execute_tool ')
    const outer = tools.find(span => span.attributes[ATTR_GEN_AI_TOOL_NAME] === 'router')!
    const inner = tools.filter(span => span.attributes[ATTR_GEN_AI_TOOL_NAME] === 'lookup')
    expect(inner.map(span => span.attributes['gen_ai.tool.call.id'])).toEqual(['toolu_outer.1', 'toolu_outer.2'])
    for (const span of inner) {
      expect(parentOf(span)).toBe(outer.spanContext().spanId)
      expect(span.attributes['zidane.tool.parent_call_id']).toBe('toolu_outer')
    }
    const [invoke] = spansNamed(otel.spans(), 'invoke_agent')
    expect(parentOf(outer)).toBe(invoke.spanContext().spanId)
  })

  it('a subagent\'s run is a child of the spawn call that made it, in the same trace, on the parent\'s telemetry', async () => {
    const otel = otelHarness()
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_spawn', name: 'spawn', input: { task: 'dig' } }] } },
      { type: 'turn', turn: { text: 'child says hi' } },
      { type: 'turn', turn: { text: 'parent done' } },
    )
    const seen: Record<string, string>[] = []
    const agent = createAgent({
      provider: provider(),
      tools: { spawn: createSpawnTool() },
      telemetry: { tracer: otel.tracer, agentName: 'lead' },
      hooks: { 'child:agent:start': ctx => void seen.push({ ...(ctx as { tracingContext?: Record<string, string> }).tracingContext }) },
    })
    const stats = await agent.run({ prompt: 'delegate' })
    expect(stats.text).toBe('parent done')
    const spans = otel.spans()
    const invokes = spansNamed(spans, 'invoke_agent')
    expect(invokes).toHaveLength(2)
    const parentRun = invokes.find(span => span.attributes['zidane.run.depth'] === 0)!
    const childRun = invokes.find(span => span.attributes['zidane.run.depth'] === 1)!
    const spawnCall = spansNamed(spans, 'execute_tool spawn')[0]
    expect(parentOf(spawnCall)).toBe(parentRun.spanContext().spanId)
    expect(parentOf(childRun)).toBe(spawnCall.spanContext().spanId)
    expect(childRun.spanContext().traceId).toBe(parentRun.spanContext().traceId)
    expect(childRun.attributes).toMatchObject({ 'gen_ai.agent.id': 'child-1', 'zidane.run.parent_id': parentRun.attributes['zidane.run.id'] })
    // The child's model call hangs under the child's run, and has one span only (not one per agent).
    const chats = spansNamed(spans, 'chat ')
    expect(chats).toHaveLength(3)
    expect(chats.filter(span => parentOf(span) === childRun.spanContext().spanId)).toHaveLength(1)
    // Each run's span counts its own tokens: the parent's two calls, the child's one (the fake reports 10 in each).
    expect(parentRun.attributes['gen_ai.usage.input_tokens']).toBe(20)
    expect(childRun.attributes['gen_ai.usage.input_tokens']).toBe(10)
    expect(stats.totalIn).toBe(30)
    // The carrier the child got is the spawn call's context.
    expect(seen[0].traceparent).toBe(`00-${spawnCall.spanContext().traceId}-${spawnCall.spanContext().spanId}-01`)
  })

  it('a run is a child of the caller\'s W3C tracingContext; a malformed one is ignored', async () => {
    const otel = otelHarness()
    fake.enqueue({ type: 'turn', turn: { text: 'a' } }, { type: 'turn', turn: { text: 'b' } })
    const agent = createAgent({ provider: provider(), telemetry: { tracer: otel.tracer } })
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    await agent.run({ prompt: 'go', tracingContext: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: 'vendor=opaque' } })
    await agent.run({ prompt: 'go', tracingContext: { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` } })
    const [first, second] = spansNamed(otel.spans(), 'invoke_agent')
    expect(first.spanContext().traceId).toBe(traceId)
    expect(parentOf(first)).toBe('00f067aa0ba902b7')
    expect(first.parentSpanContext?.isRemote).toBe(true)
    expect(first.spanContext().traceState?.get('vendor')).toBe('opaque')
    expect(parentOf(second)).toBeUndefined()
    expect(second.spanContext().traceId).not.toBe(traceId)
  })

  it('a run resumed from a reloaded session joins the trace of the run it continues and links to it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zidane-otel-resume-'))
    try {
      const store = createFileStore({ dir })
      fake.enqueue({ type: 'turn', turn: { text: 'first answer' } }, { type: 'turn', turn: { text: 'second answer' } })
      const before = otelHarness()
      const session = await createSession({ id: 'resumable', store })
      await createAgent({ provider: provider(), session, telemetry: { tracer: before.tracer } }).run({ prompt: 'start' })
      const [original] = spansNamed(before.spans(), 'invoke_agent')

      // Another agent, another tracer provider, the session read back from the store: what a new process has.
      const after = otelHarness()
      const reloaded = await loadSession('resumable', { store })
      expect(reloaded.runs[0].traceContext?.traceparent).toContain(original.spanContext().spanId)
      await createAgent({ provider: provider(), session: reloaded, telemetry: { tracer: after.tracer } }).run({ prompt: 'go on', resumeRunId: reloaded.runs[0].id })
      const [resumed] = spansNamed(after.spans(), 'invoke_agent')
      expect(resumed.spanContext().traceId).toBe(original.spanContext().traceId)
      expect(parentOf(resumed)).toBe(original.spanContext().spanId)
      expect(resumed.links.map(link => link.context.spanId)).toEqual([original.spanContext().spanId])
    }
    finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('agent.decide outside a run is a chat span of kind decision', async () => {
    const otel = otelHarness()
    fake.enqueue({ type: 'turn', turn: { toolCalls: [{ name: 'record_answers', input: { safe: { value: true, refused: false, reason: 'read-only' } } }], usage: { input_tokens: 90, output_tokens: 20 } } })
    const questions = { safe: { kind: 'predicate', question: 'Is the command safe to run?' } } as const satisfies DecisionQuestions
    const agent = createAgent({ provider: provider(), telemetry: { tracer: otel.tracer, agentName: 'judge' } })
    const outcome = await agent.decide({ input: 'ls', questions })
    expect(outcome.ok).toBe(true)
    const [chat] = spansNamed(otel.spans(), 'chat ')
    expect(chat.attributes).toMatchObject({ [ATTR_GEN_AI_OPERATION_NAME]: 'chat', 'zidane.model_call.kind': 'decision', 'gen_ai.output.type': 'json', 'gen_ai.usage.input_tokens': 90, 'gen_ai.agent.name': 'judge', 'gen_ai.response.id': 'msg_fake_01' })
    expect(parentOf(chat)).toBeUndefined()
  })
})
