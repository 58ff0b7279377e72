import type { FakeAnthropic } from '../support/fake-anthropic'
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_DEFINITIONS,
} from '@opentelemetry/semantic-conventions/incubating'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { capText, messagesJson } from '../../src/telemetry/content'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { echoTool } from '../support/helpers'
import { otelHarness, spansNamed } from './otel-harness'

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

const provider = () => anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-test' })

function scriptToolThenText() {
  fake.enqueue(
    { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { q: 'secret-42' } }] } },
    { type: 'turn', turn: { text: 'the answer is secret-42' } },
  )
}

describe('content on spans', () => {
  it('recordInputs records the messages, system instructions, tool definitions and tool arguments, and nothing that came back', async () => {
    const otel = otelHarness()
    scriptToolThenText()
    const agent = createAgent({ provider: provider(), system: 'Be brief.', tools: { lookup: echoTool('lookup') }, telemetry: { tracer: otel.tracer, recordInputs: true } })
    await agent.run({ prompt: 'look up secret-42' })
    const spans = otel.spans()
    const [firstChat, secondChat] = spansNamed(spans, 'chat ')
    expect(JSON.parse(firstChat.attributes[ATTR_GEN_AI_INPUT_MESSAGES] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'look up secret-42' }] }])
    expect(JSON.parse(firstChat.attributes[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] as string)[0].content).toContain('Be brief.')
    expect(JSON.parse(firstChat.attributes[ATTR_GEN_AI_TOOL_DEFINITIONS] as string)).toEqual([expect.objectContaining({ type: 'function', name: 'lookup', description: 'lookup tool' })])
    // The second call's input has the tool call and its result, in the conventions' part types.
    const second = JSON.parse(secondChat.attributes[ATTR_GEN_AI_INPUT_MESSAGES] as string)
    expect(second.map((message: { parts: { type: string }[] }) => message.parts.map(part => part.type))).toEqual([['text'], ['tool_call'], ['tool_call_response']])
    const [tool] = spansNamed(spans, 'execute_tool ')
    expect(JSON.parse(tool.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] as string)).toEqual({ q: 'secret-42' })
    const [invoke] = spansNamed(spans, 'invoke_agent')
    expect(JSON.parse(invoke.attributes[ATTR_GEN_AI_INPUT_MESSAGES] as string)[0].parts[0].content).toBe('look up secret-42')
    for (const span of spans) {
      expect(span.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES]).toBeUndefined()
      expect(span.attributes[ATTR_GEN_AI_TOOL_CALL_RESULT]).toBeUndefined()
    }
  })

  it('recordOutputs records each call\'s output, each tool\'s result and the run\'s answer, and nothing that was sent', async () => {
    const otel = otelHarness()
    scriptToolThenText()
    const agent = createAgent({ provider: provider(), tools: { lookup: echoTool('lookup') }, telemetry: { tracer: otel.tracer, recordOutputs: true } })
    await agent.run({ prompt: 'look up secret-42' })
    const spans = otel.spans()
    const [, secondChat] = spansNamed(spans, 'chat ')
    expect(JSON.parse(secondChat.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES] as string)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'the answer is secret-42' }], finish_reason: 'stop' }])
    const [tool] = spansNamed(spans, 'execute_tool ')
    expect(tool.attributes[ATTR_GEN_AI_TOOL_CALL_RESULT]).toBe('lookup:{"q":"secret-42"}')
    const [invoke] = spansNamed(spans, 'invoke_agent')
    expect(JSON.parse(invoke.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES] as string)[0].parts[0].content).toBe('the answer is secret-42')
    for (const span of spans) {
      expect(span.attributes[ATTR_GEN_AI_INPUT_MESSAGES]).toBeUndefined()
      expect(span.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]).toBeUndefined()
    }
  })

  it('maxContentBytes caps every content attribute and marks the span; the redaction hook sees and rewrites what is recorded', async () => {
    const otel = otelHarness()
    const long = 'x'.repeat(5000)
    fake.enqueue({ type: 'turn', turn: { text: `${long} secret-42` } })
    const seen: string[] = []
    const agent = createAgent({
      provider: provider(),
      telemetry: {
        tracer: otel.tracer,
        recordInputs: true,
        recordOutputs: true,
        maxContentBytes: 1024,
        redact: (text, info) => {
          seen.push(`${info.operation}:${info.attribute}`)
          if (info.attribute === ATTR_GEN_AI_SYSTEM_INSTRUCTIONS)
            return undefined
          return text.replaceAll('secret-42', '[redacted]')
        },
      },
    })
    await agent.run({ prompt: `${long} secret-42` })
    const spans = otel.spans()
    for (const span of spans) {
      for (const [key, value] of Object.entries(span.attributes)) {
        if (typeof value === 'string' && key.startsWith('gen_ai.'))
          expect(Buffer.byteLength(value), key).toBeLessThanOrEqual(1024)
      }
      expect(span.attributes[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS]).toBeUndefined()
      expect(JSON.stringify(span.attributes)).not.toContain('secret-42')
      expect(span.attributes['zidane.content.truncated']).toBe(true)
    }
    const [chat] = spansNamed(spans, 'chat ')
    expect(JSON.parse(chat.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES] as string)[0].parts[0].content).toMatch(/^x+…$/)
    expect(seen).toEqual(expect.arrayContaining(['chat:gen_ai.input.messages', 'chat:gen_ai.system_instructions', 'chat:gen_ai.output.messages', 'invoke_agent:gen_ai.input.messages']))
  })

  it('a redaction hook that throws drops the attribute', async () => {
    const otel = otelHarness()
    fake.enqueue({ type: 'turn', turn: { text: 'ok' } })
    const agent = createAgent({ provider: provider(), telemetry: { tracer: otel.tracer, recordInputs: true, redact: () => {
      throw new Error('redactor down')
    } } })
    await agent.run({ prompt: 'private' })
    for (const span of otel.spans())
      expect(span.attributes[ATTR_GEN_AI_INPUT_MESSAGES]).toBeUndefined()
  })
})

describe('content caps', () => {
  it('a capped text is within the cap, never splits a character, and is a prefix of the original', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.integer({ min: 8, max: 600 }), (text, maxBytes) => {
      const { text: capped, truncated } = capText(text, maxBytes)
      expect(Buffer.byteLength(capped)).toBeLessThanOrEqual(maxBytes)
      if (!truncated) {
        expect(capped).toBe(text)
        return
      }
      const kept = capped.slice(0, -1)
      expect(text.startsWith(kept)).toBe(true)
      // No lone high surrogate at the cut.
      const last = kept.charCodeAt(kept.length - 1)
      expect(last >= 0xD800 && last <= 0xDBFF).toBe(false)
    }))
  })

  it('messages over the cap keep the newest, and the result is valid JSON within the cap', () => {
    fc.assert(fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 30 }), fc.integer({ min: 64, max: 2000 }), (texts, maxBytes) => {
      const messages = texts.map((text, i) => ({ role: i % 2 === 0 ? 'user' as const : 'assistant' as const, content: [{ type: 'text' as const, text }] }))
      const { value, truncated } = messagesJson(messages, maxBytes)
      expect(Buffer.byteLength(value)).toBeLessThanOrEqual(maxBytes)
      const parsed = JSON.parse(value) as unknown[]
      if (!truncated)
        expect(parsed).toHaveLength(messages.length)
      if (parsed.length > 0)
        expect((parsed.at(-1) as { role: string }).role).toBe(messages.at(-1)!.role)
    }))
  })
})
