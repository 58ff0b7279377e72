import type { FakeAnthropic } from '../support/fake-anthropic'
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_TOKEN_TYPE_VALUE_INPUT,
  GEN_AI_TOKEN_TYPE_VALUE_OUTPUT,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
} from '@opentelemetry/semantic-conventions/incubating'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent, definePolicy } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { echoTool } from '../support/helpers'
import { otelHarness, parentOf, spansNamed } from './otel-harness'

// Kinds of spans as the SDK numbers them (`SpanKind` of `@opentelemetry/api`).
const INTERNAL = 0
const CLIENT = 2
const ERROR = 2

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

const provider = () => anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-test' })

describe('spans of a run', () => {
  it('one invoke_agent span, a chat span per model call and an execute_tool span per call, with the conventions\' attributes', async () => {
    const otel = otelHarness()
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { q: 'x' } }], usage: { input_tokens: 120, output_tokens: 9, cache_read_input_tokens: 80, cache_creation_input_tokens: 40 }, model: 'claude-test-20260101' } },
      { type: 'turn', turn: { text: 'found it', usage: { input_tokens: 150, output_tokens: 4 } } },
    )
    const session = await createSession({ id: 'conv-42' })
    const agent = createAgent({
      provider: provider(),
      session,
      tools: { lookup: echoTool('lookup') },
      behavior: { maxTokens: 900 },
      telemetry: { tracer: otel.tracer, meter: otel.meter, agentName: 'researcher', agentId: 'agent-7' },
    })
    const stats = await agent.run({ prompt: 'find x' })
    expect(stats.text).toBe('found it')

    const spans = otel.spans()
    const [invoke] = spansNamed(spans, 'invoke_agent')
    const chats = spansNamed(spans, 'chat ')
    const tools = spansNamed(spans, 'execute_tool ')
    expect(spans).toHaveLength(4)
    expect(invoke.name).toBe('invoke_agent researcher')
    expect(chats.map(span => span.name)).toEqual(['chat claude-test', 'chat claude-test'])
    expect(tools.map(span => span.name)).toEqual(['execute_tool lookup'])

    // One trace; the model and tool calls are children of the run.
    expect(new Set(spans.map(span => span.spanContext().traceId)).size).toBe(1)
    expect(parentOf(invoke)).toBeUndefined()
    for (const span of [...chats, ...tools])
      expect(parentOf(span)).toBe(invoke.spanContext().spanId)

    expect(invoke.kind).toBe(INTERNAL)
    expect(invoke.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [ATTR_GEN_AI_PROVIDER_NAME]: GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
      [ATTR_GEN_AI_REQUEST_MODEL]: 'claude-test',
      [ATTR_GEN_AI_AGENT_NAME]: 'researcher',
      [ATTR_GEN_AI_AGENT_ID]: 'agent-7',
      [ATTR_GEN_AI_CONVERSATION_ID]: 'conv-42',
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: stats.totalIn,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: stats.totalOut,
      [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 80,
      [ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: 40,
      [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: ['completed'],
    })

    const [first, second] = chats
    expect(first.kind).toBe(CLIENT)
    expect(first.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
      [ATTR_GEN_AI_REQUEST_MODEL]: 'claude-test',
      [ATTR_GEN_AI_REQUEST_MAX_TOKENS]: 900,
      [ATTR_GEN_AI_RESPONSE_MODEL]: 'claude-test-20260101',
      [ATTR_GEN_AI_RESPONSE_ID]: 'msg_fake_01',
      [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: ['tool-calls'],
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 120,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 9,
      [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 80,
      [ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: 40,
      [ATTR_GEN_AI_CONVERSATION_ID]: 'conv-42',
      'zidane.model_call.kind': 'turn',
      'zidane.model_call.attempt': 1,
    })
    expect(first.attributes[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK]).toBeGreaterThan(0)
    expect(second.attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS]).toEqual(['stop'])

    const [call] = tools
    expect(call.kind).toBe(INTERNAL)
    expect(call.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: 'lookup',
      [ATTR_GEN_AI_TOOL_CALL_ID]: 'toolu_1',
      [ATTR_GEN_AI_TOOL_TYPE]: 'function',
      [ATTR_GEN_AI_TOOL_DESCRIPTION]: 'lookup tool',
      [ATTR_GEN_AI_AGENT_NAME]: 'researcher',
    })
    // The tool ran between the two model calls.
    expect(call.startTime[0] * 1e9 + call.startTime[1]).toBeGreaterThanOrEqual(first.endTime[0] * 1e9 + first.endTime[1])

    // Content is opt-in: nothing of the conversation is on any span.
    for (const span of spans)
      expect(Object.keys(span.attributes).filter(key => /messages|instructions|definitions|arguments|result/.test(key))).toEqual([])

    // The run record carries the run span's W3C context.
    expect(session.runs[0].traceContext?.traceparent).toBe(`00-${invoke.spanContext().traceId}-${invoke.spanContext().spanId}-01`)
  })

  it('records the GenAI client metrics with the agent name as a dimension', async () => {
    const otel = otelHarness()
    fake.enqueue({ type: 'turn', turn: { text: 'hi', usage: { input_tokens: 300, output_tokens: 7 } } })
    const agent = createAgent({ provider: provider(), telemetry: { tracer: otel.tracer, meter: otel.meter, agentName: 'greeter' } })
    await agent.run({ prompt: 'hello' })

    const tokens = await otel.histogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE)
    expect(tokens?.descriptor.unit).toBe('{token}')
    const points = tokens!.dataPoints.map(point => ({ type: point.attributes[ATTR_GEN_AI_TOKEN_TYPE], sum: point.value.sum, agent: point.attributes[ATTR_GEN_AI_AGENT_NAME], provider: point.attributes[ATTR_GEN_AI_PROVIDER_NAME], op: point.attributes[ATTR_GEN_AI_OPERATION_NAME] }))
    expect(points).toEqual(expect.arrayContaining([
      { type: GEN_AI_TOKEN_TYPE_VALUE_INPUT, sum: 300, agent: 'greeter', provider: 'anthropic', op: 'chat' },
      { type: GEN_AI_TOKEN_TYPE_VALUE_OUTPUT, sum: 7, agent: 'greeter', provider: 'anthropic', op: 'chat' },
    ]))
    // The conventions' bucket boundaries.
    expect(tokens!.dataPoints[0].value.buckets.boundaries).toEqual([1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864])

    const duration = await otel.histogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION)
    expect(duration?.descriptor.unit).toBe('s')
    expect(duration!.dataPoints).toHaveLength(1)
    expect(duration!.dataPoints[0].attributes).toMatchObject({ [ATTR_GEN_AI_AGENT_NAME]: 'greeter', [ATTR_GEN_AI_REQUEST_MODEL]: 'claude-test', [ATTR_GEN_AI_RESPONSE_MODEL]: 'claude-test' })
    expect(duration!.dataPoints[0].value.count).toBe(1)
    expect(duration!.dataPoints[0].value.buckets.boundaries).toEqual([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92])

    const firstChunk = await otel.histogram(METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK)
    expect(firstChunk?.descriptor.unit).toBe('s')
    expect(firstChunk!.dataPoints[0].value.count).toBe(1)
    expect(firstChunk!.dataPoints[0].value.sum).toBeGreaterThan(0)
  })

  it('a failing tool is an error span with error.type; a retried call is one span per attempt, the failed one marked', async () => {
    const otel = otelHarness()
    fake.enqueue(
      { type: 'error', status: 529 },
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_b', name: 'broken', input: {} }] } },
      { type: 'turn', turn: { text: 'gave up' } },
    )
    const broken = echoTool('broken', { execute: () => {
      throw new RangeError('no such row')
    } })
    const agent = createAgent({ provider: provider(), tools: { broken }, behavior: { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 1 } }, telemetry: { tracer: otel.tracer, meter: otel.meter } })
    await agent.run({ prompt: 'go' })

    const spans = otel.spans()
    const chats = spansNamed(spans, 'chat ')
    expect(chats.map(span => span.attributes['zidane.model_call.attempt'])).toEqual([1, 2, 1])
    expect(chats[0].status.code).toBe(ERROR)
    expect(chats[0].attributes[ATTR_ERROR_TYPE]).toBe('overloaded')
    expect(chats[1].status.code).not.toBe(ERROR)
    const [tool] = spansNamed(spans, 'execute_tool ')
    expect(tool.status).toMatchObject({ code: ERROR, message: 'no such row' })
    expect(tool.attributes[ATTR_ERROR_TYPE]).toBe('RangeError')
    // The retry is an event of the run's span.
    const [invoke] = spansNamed(spans, 'invoke_agent')
    expect(invoke.events.map(event => event.name)).toContain('zidane.model_call.retry')
    expect(invoke.attributes[ATTR_GEN_AI_AGENT_NAME]).toBe('zidane')

    const duration = await otel.histogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION)
    expect(duration!.dataPoints.find(point => point.attributes[ATTR_ERROR_TYPE] === 'overloaded')?.value.count).toBe(1)
  })

  it('a fallback to the next provider shows on the run span, and the next call\'s span names the new target', async () => {
    const otel = otelHarness()
    const backup = await startFakeAnthropic()
    try {
      fake.enqueue({ type: 'error', status: 400 })
      backup.enqueue({ type: 'turn', turn: { text: 'from backup' } })
      const primary = anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'primary-model' })
      const secondary = { ...anthropic({ apiKey: 'k', baseURL: backup.url, defaultModel: 'backup-model' }), name: 'anthropic-backup' }
      const agent = createAgent({ provider: [primary, secondary], telemetry: { tracer: otel.tracer, meter: otel.meter } })
      const stats = await agent.run({ prompt: 'go' })
      expect(stats.text).toBe('from backup')
      const chats = spansNamed(otel.spans(), 'chat ')
      expect(chats.map(span => [span.name, span.attributes[ATTR_GEN_AI_PROVIDER_NAME], span.status.code === ERROR])).toEqual([
        ['chat primary-model', 'anthropic', true],
        ['chat backup-model', 'anthropic-backup', false],
      ])
      const [invoke] = spansNamed(otel.spans(), 'invoke_agent')
      const fallback = invoke.events.find(event => event.name === 'zidane.model.fallback')
      expect(fallback?.attributes).toMatchObject({ 'zidane.fallback.from.model': 'primary-model', 'zidane.fallback.to.model': 'backup-model', [ATTR_ERROR_TYPE]: 'invalid_request' })
    }
    finally {
      await backup.close()
    }
  })

  it('a policy\'s side call and a hook\'s decision are chat spans of the run, marked as such', async () => {
    const otel = otelHarness()
    fake.enqueue(
      { type: 'turn', turn: { text: 'answer' } },
      { type: 'turn', turn: { text: 'a note about it' } },
    )
    let noted = ''
    const noter = definePolicy({
      name: 'noter',
      afterTurn: async ({ run }) => {
        noted = (await run.complete({ prompt: [{ type: 'text', text: 'note it' }], purpose: 'note' })).text
      },
    })
    const agent = createAgent({ provider: provider(), policies: [noter], telemetry: { tracer: otel.tracer, meter: otel.meter } })
    await agent.run({ prompt: 'go' })
    expect(noted).toBe('a note about it')
    const spans = otel.spans()
    const [invoke] = spansNamed(spans, 'invoke_agent')
    const chats = spansNamed(spans, 'chat ')
    expect(chats.map(span => [span.attributes['zidane.model_call.kind'], span.attributes['zidane.model_call.purpose']])).toEqual([['turn', undefined], ['side-call', 'note']])
    for (const chat of chats)
      expect(parentOf(chat)).toBe(invoke.spanContext().spanId)
  })
})

describe('telemetry options', () => {
  it('a bad maxContentBytes fails createAgent', () => {
    expect(() => createAgent({ provider: provider(), telemetry: { maxContentBytes: 3 } })).toThrow(/maxContentBytes/)
    expect(() => createAgent({ provider: provider(), telemetry: { redact: 'no' as never } })).toThrow(/redact/)
  })
})
