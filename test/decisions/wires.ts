/**
 * The decision wires under test: each provider pointed at the fake server of
 * its API, and the way that API sends an answer object back (a forced tool
 * call on Anthropic, JSON message text on Chat Completions and Responses).
 */

import type { Provider } from '../../src'
import type { FakeResponse } from '../support/fake-anthropic'
import type { FakeOpenAIResponse } from '../support/fake-openai'
import type { RecordedRequest } from '../support/scripted-server'
import { anthropic } from '../../src/providers/anthropic'
import { cerebras } from '../../src/providers/cerebras'
import { openai } from '../../src/providers/openai'
import { openaiCompat } from '../../src/providers/openai-compat'
import { openrouter } from '../../src/providers/openrouter'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'

export interface WireUsage { input: number, output: number, cost?: number }

/** One fake server, whichever API it speaks. */
export interface FakeApi {
  url: string
  requests: RecordedRequest[]
  close: () => Promise<void>
  /** Queue a successful reply whose answer object is `answers` (any JSON, to test malformed ones too). */
  answer: (answers: unknown, usage?: WireUsage) => void
  /** Queue the API's own refusal of the whole request. */
  refuse: () => void
  /** Queue a reply cut off at the output-token limit. */
  truncate: (answers: unknown) => void
  /** Queue a JSON error with this status. */
  error: (status: number) => void
  /** Queue a request that is accepted and never answered. */
  stall: () => void
}

export interface DecisionWire {
  name: string
  /** The provider name stamped on outcomes. */
  providerName: string
  start: () => Promise<FakeApi>
  provider: (url: string, apiKey?: string) => Provider
  /** The path the decision request must go to. */
  path: string
  /** Check that the request used the API's structured mode; returns the schema sent. */
  structured: (body: any) => Record<string, unknown>
}

async function anthropicApi(): Promise<FakeApi> {
  const fake = await startFakeAnthropic()
  const turn = (input: unknown, usage: WireUsage | undefined, stopReason?: string): FakeResponse => ({
    type: 'turn',
    turn: {
      toolCalls: [{ id: 'toolu_decision_01', name: 'record_answers', input }],
      usage: { input_tokens: usage?.input ?? 120, output_tokens: usage?.output ?? 30 },
      ...(stopReason ? { stopReason } : {}),
    },
  })
  return {
    url: fake.url,
    requests: fake.requests,
    close: fake.close,
    answer: (answers, usage) => fake.enqueue(turn(answers, usage)),
    refuse: () => fake.enqueue({ type: 'turn', turn: { text: 'I can\'t help with that.', stopReason: 'refusal', usage: { input_tokens: 100, output_tokens: 8 } } }),
    truncate: answers => fake.enqueue(turn(answers, undefined, 'max_tokens')),
    error: status => fake.enqueue({ type: 'error', status }),
    stall: () => fake.enqueue({ type: 'stall-before-headers' }),
  }
}

async function chatApi(cost?: number): Promise<FakeApi> {
  const fake = await startFakeOpenAI()
  const turn = (answers: unknown, usage: WireUsage | undefined, finishReason?: string): FakeOpenAIResponse => ({
    type: 'turn',
    turn: {
      // Streamed in pieces, as a constrained decoder emits it.
      text: chunked(JSON.stringify(answers)),
      usage: { prompt_tokens: usage?.input ?? 120, completion_tokens: usage?.output ?? 30, ...(cost !== undefined ? { cost } : {}) },
      ...(finishReason ? { finishReason } : {}),
    },
  })
  return {
    url: fake.url,
    requests: fake.requests,
    close: fake.close,
    answer: (answers, usage) => fake.enqueue(turn(answers, usage)),
    refuse: () => fake.enqueue({ type: 'turn', turn: { text: '', finishReason: 'content_filter', usage: { prompt_tokens: 100, completion_tokens: 0 } } }),
    truncate: answers => fake.enqueue(turn(answers, undefined, 'length')),
    error: status => fake.enqueue({ type: 'error', status }),
    stall: () => fake.enqueue({ type: 'stall-before-headers' }),
  }
}

async function responsesApi(): Promise<FakeApi> {
  const fake = await startFakeOpenAI()
  const reply = (answers: unknown, usage: WireUsage | undefined, incomplete?: 'max_output_tokens'): FakeOpenAIResponse => ({
    type: 'sse',
    events: responsesEvents({
      text: chunked(JSON.stringify(answers)),
      usage: { input_tokens: usage?.input ?? 120, output_tokens: usage?.output ?? 30 },
      model: 'gpt-5.2',
      ...(incomplete ? { incomplete } : {}),
    }),
  })
  return {
    url: fake.url,
    requests: fake.requests,
    close: fake.close,
    answer: (answers, usage) => fake.enqueue(reply(answers, usage)),
    refuse: () => fake.enqueue({ type: 'sse', events: responsesEvents({ output: [{ type: 'message', text: 'I can\'t help with that.', refusal: true }], usage: { input_tokens: 100, output_tokens: 8 }, model: 'gpt-5.2' }) }),
    truncate: answers => fake.enqueue(reply(answers, undefined, 'max_output_tokens')),
    error: status => fake.enqueue({ type: 'error', status }),
    stall: () => fake.enqueue({ type: 'stall-before-headers' }),
  }
}

function chunked(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3))
  const pieces: string[] = []
  for (let at = 0; at < text.length; at += size)
    pieces.push(text.slice(at, at + size))
  return pieces
}

function chatSchema(body: any): Record<string, unknown> {
  const format = body.response_format
  if (format?.type !== 'json_schema' || format.json_schema?.strict !== true)
    throw new Error(`no strict json_schema response_format in ${JSON.stringify(body)}`)
  return format.json_schema.schema
}

export const DECISION_WIRES: readonly DecisionWire[] = [
  {
    name: 'anthropic',
    providerName: 'anthropic',
    start: anthropicApi,
    provider: (url, apiKey = 'test-key') => anthropic({ baseURL: url, apiKey, defaultModel: 'claude-haiku-4-5' }),
    path: '/v1/messages',
    structured: (body) => {
      if (body.tool_choice?.type !== 'tool' || body.tool_choice.name !== 'record_answers')
        throw new Error(`no forced tool choice in ${JSON.stringify(body)}`)
      if (body.thinking !== undefined)
        throw new Error('a forced tool choice must go without thinking')
      return body.tools.find((tool: any) => tool.name === 'record_answers').input_schema
    },
  },
  {
    name: 'openai (chat)',
    providerName: 'openai',
    start: () => chatApi(),
    provider: (url, apiKey = 'test-key') => openai({ baseURL: url, apiKey, defaultModel: 'gpt-5.2' }),
    path: '/v1/chat/completions',
    structured: chatSchema,
  },
  {
    name: 'openai (responses)',
    providerName: 'openai',
    start: responsesApi,
    provider: (url, apiKey = 'test-key') => openai({ baseURL: url, apiKey, defaultModel: 'gpt-5.2', api: 'responses' }),
    path: '/v1/responses',
    structured: (body) => {
      const format = body.text?.format
      if (format?.type !== 'json_schema' || format.strict !== true)
        throw new Error(`no strict json_schema text.format in ${JSON.stringify(body)}`)
      return format.schema
    },
  },
  {
    name: 'openai-compat',
    providerName: 'openai-compat',
    start: () => chatApi(),
    provider: url => openaiCompat({ baseURL: url, defaultModel: 'qwen3-8b' }),
    path: '/v1/chat/completions',
    structured: chatSchema,
  },
  {
    name: 'openrouter',
    providerName: 'openrouter',
    start: () => chatApi(0.000_42),
    provider: (url, apiKey = 'test-key') => openrouter({ baseURL: url, apiKey, defaultModel: 'openai/gpt-5-mini' }),
    path: '/v1/chat/completions',
    structured: (body) => {
      if (body.provider?.require_parameters !== true)
        throw new Error('OpenRouter decisions must require upstreams that honor response_format')
      return chatSchema(body)
    },
  },
  {
    name: 'cerebras',
    providerName: 'cerebras',
    start: () => chatApi(),
    provider: (url, apiKey = 'test-key') => cerebras({ baseURL: url, apiKey, defaultModel: 'gpt-oss-120b' }),
    path: '/v1/chat/completions',
    structured: chatSchema,
  },
]
