import type { AgentBehavior, Provider } from '../../src'
import type { OutputPartialContext } from '../../src/hooks/hook-map'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { cerebras } from '../../src/providers/cerebras'
import { openai } from '../../src/providers/openai'
import { openaiCompat } from '../../src/providers/openai-compat'
import { openrouter } from '../../src/providers/openrouter'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'

// Structured output through the public API, on every provider, against local
// servers that speak each real wire (Anthropic SSE, Chat Completions SSE,
// Responses SSE) through the official SDK clients.

let claude: FakeAnthropic
let oai: FakeOpenAI
beforeAll(async () => {
  claude = await startFakeAnthropic()
  oai = await startFakeOpenAI()
})
beforeEach(() => {
  claude.requests.length = 0
  oai.requests.length = 0
})
afterAll(async () => {
  await claude.close()
  await oai.close()
})

/** One scripted model turn, in provider-neutral terms. */
interface Turn {
  text?: string | string[]
  toolCalls?: { name: string, input: unknown, rawJson?: string }[]
}

/** A provider under test: how to build it, how to script its server, and how to read what it sent. */
interface Wire {
  name: string
  provider: () => Provider
  enqueue: (...turns: Turn[]) => void
  requests: () => any[]
  /** Tool names offered by one request. */
  tools: (body: any) => string[]
  /** The system prompt text of one request. */
  system: (body: any) => string
}

function chatWire(name: string, provider: () => Provider): Wire {
  return {
    name,
    provider,
    enqueue: (...turns) => oai.enqueue(...turns.map(turn => ({ type: 'turn' as const, turn: { text: turn.text, toolCalls: turn.toolCalls } }))),
    requests: () => oai.requests.map(request => request.body),
    tools: body => (body.tools ?? []).map((entry: any) => entry.function.name),
    system: body => body.messages.filter((message: any) => message.role === 'system' || message.role === 'developer').map((message: any) => typeof message.content === 'string' ? message.content : message.content.map((part: any) => part.text).join('')).join('\n'),
  }
}

const WIRES: Wire[] = [
  {
    name: 'anthropic',
    provider: () => anthropic({ baseURL: claude.url, apiKey: 'test-key', defaultModel: 'claude-sonnet-4-6' }),
    enqueue: (...turns) => claude.enqueue(...turns.map(turn => ({ type: 'turn' as const, turn: { text: turn.text, toolCalls: turn.toolCalls } }))),
    requests: () => claude.requests.map(request => request.body),
    tools: body => (body.tools ?? []).map((entry: any) => entry.name),
    system: body => typeof body.system === 'string' ? body.system : (body.system ?? []).map((part: any) => part.text).join(''),
  },
  chatWire('openai (chat)', () => openai({ baseURL: oai.url, apiKey: 'test-key', defaultModel: 'gpt-5.2' })),
  chatWire('openai-compat', () => openaiCompat({ baseURL: oai.url, apiKey: 'test-key', name: 'local', defaultModel: 'qwen3-32b' })),
  chatWire('openrouter', () => openrouter({ baseURL: oai.url, apiKey: 'test-key', defaultModel: 'openai/gpt-5.2' })),
  chatWire('cerebras', () => cerebras({ baseURL: oai.url, apiKey: 'test-key' })),
  {
    name: 'openai (responses)',
    provider: () => openai({ baseURL: oai.url, apiKey: 'test-key', defaultModel: 'gpt-5.2', api: 'responses' }),
    enqueue: (...turns) => oai.enqueue(...turns.map(turn => ({ type: 'sse' as const, events: responsesEvents({ text: turn.text, toolCalls: turn.toolCalls }) }))),
    requests: () => oai.requests.map(request => request.body),
    tools: body => (body.tools ?? []).map((entry: any) => entry.name),
    system: body => [body.instructions ?? '', ...(body.input ?? []).filter((item: any) => item.role === 'system' || item.role === 'developer').map((item: any) => JSON.stringify(item.content))].join('\n'),
  },
]

const WEATHER = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    celsius: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['city', 'celsius'],
  additionalProperties: false,
}

function lookup(log: string[]) {
  return tool({
    name: 'lookup',
    description: 'Look up the weather of a city',
    input: z.object({ city: z.string() }),
    execute: ({ city }) => {
      log.push(city)
      return `${city}: 21 degrees`
    },
  })
}

const answer = (input: unknown): Turn => ({ toolCalls: [{ name: 'final_answer', input }] })

async function run(wire: Wire, behavior: AgentBehavior, tools = {}) {
  const agent = createAgent({ provider: wire.provider(), tools, behavior, system: 'You report the weather.' })
  try {
    return await agent.run({ prompt: 'Weather in Ljubljana?' })
  }
  finally {
    await agent.destroy()
  }
}

describe.each(WIRES)('structured output on $name', (wire) => {
  it('lets the model call tools first and give the output last', async () => {
    const looked: string[] = []
    wire.enqueue(
      { text: 'Checking.', toolCalls: [{ name: 'lookup', input: { city: 'Ljubljana' } }] },
      answer({ city: 'Ljubljana', celsius: 21, tags: ['sunny'] }),
    )
    const stats = await run(wire, { schema: WEATHER }, { lookup: lookup(looked) })
    expect(looked).toEqual(['Ljubljana'])
    expect(stats.stopReason).toBe('completed')
    expect(stats.output).toEqual({ city: 'Ljubljana', celsius: 21, tags: ['sunny'] })
    expect(JSON.parse(stats.text)).toEqual(stats.output)
    expect(stats.outputError).toBeUndefined()
    const [first] = wire.requests()
    // Both tools are offered on every turn: the host's, and the final-answer tool after it.
    expect(wire.tools(first)).toEqual(['lookup', 'final_answer'])
    expect(JSON.stringify(first)).toContain('"celsius"')
  })

  it('sends an invalid output back with what failed, and takes the repaired one', async () => {
    wire.enqueue(
      answer({ city: 'Ljubljana', celsius: 'warm' }),
      answer({ city: 'Ljubljana', celsius: 21 }),
    )
    const stats = await run(wire, { schema: WEATHER })
    expect(stats.stopReason).toBe('completed')
    expect(stats.output).toEqual({ city: 'Ljubljana', celsius: 21 })
    const second = JSON.stringify(wire.requests()[1])
    expect(second).toContain('celsius: expected number, got string')
    expect(second).toContain('Call final_answer again with the corrected output.')
  })

  it('ends with output-invalid, the raw answer and what failed once the repairs are spent', async () => {
    wire.enqueue(
      answer({ city: 'Ljubljana' }),
      answer({ city: 'Ljubljana', celsius: 'x' }),
    )
    const stats = await run(wire, { schema: WEATHER, maxOutputRepairs: 1 })
    expect(stats.stopReason).toBe('output-invalid')
    expect(stats.output).toBeUndefined()
    expect(JSON.parse(stats.text)).toEqual({ city: 'Ljubljana', celsius: 'x' })
    expect(stats.outputError).toEqual({
      problems: ['celsius: expected number, got string'],
      message: 'The output failed validation: celsius: expected number, got string',
      attempts: 2,
    })
    expect(wire.requests()).toHaveLength(2)
  })

  it('spends the last turn maxTurns allows on the output: only the final-answer tool is offered', async () => {
    const looked: string[] = []
    wire.enqueue(
      { toolCalls: [{ name: 'lookup', input: { city: 'Ljubljana' } }] },
      answer({ city: 'Ljubljana', celsius: 21 }),
    )
    const stats = await run(wire, { schema: WEATHER, maxTurns: 2 }, { lookup: lookup(looked) })
    expect(stats.stopReason).toBe('completed')
    expect(stats.output).toEqual({ city: 'Ljubljana', celsius: 21 })
    const [first, last] = wire.requests()
    expect(wire.tools(first)).toEqual(['lookup', 'final_answer'])
    expect(wire.tools(last)).toEqual(['final_answer'])
    expect(wire.system(last)).toContain('This is the last turn of this run')
    expect(wire.system(first)).not.toContain('This is the last turn of this run')
  })

  it('streams the output as it is written, and gives the value only after validation', async () => {
    const value = { city: 'Ljubljana', celsius: 21, tags: ['sunny', 'calm'] }
    wire.enqueue(answer(value))
    const partials: { text: string, value: unknown }[] = []
    let outputWhileStreaming: unknown = 'unset'
    const agent = createAgent({ provider: wire.provider(), behavior: { schema: WEATHER } })
    agent.hooks.hook('output:partial', (ctx: OutputPartialContext) => void partials.push({ text: ctx.text, value: ctx.value }))
    const stream = agent.stream({ prompt: 'Weather?' })
    const events: unknown[] = []
    for await (const event of stream) {
      if (event.type === 'output-partial')
        events.push(event.value)
      if (event.type === 'turn-end')
        outputWhileStreaming = (await Promise.race([stream.result.then(() => 'settled'), Promise.resolve('pending')]))
    }
    const stats = await stream.result
    await agent.destroy()
    expect(partials.length).toBeGreaterThan(1)
    expect(partials.at(-1)!.text).toBe(JSON.stringify(value))
    expect(partials.at(-1)!.value).toEqual(value)
    // Each partial is a prefix of the final text, and an earlier one shows less than the whole.
    for (const partial of partials)
      expect(JSON.stringify(value).startsWith(partial.text)).toBe(true)
    expect(partials[0].value).not.toEqual(value)
    expect(events.at(-1)).toEqual(value)
    expect(outputWhileStreaming).toBe('pending')
    expect(stats.output).toEqual(value)
  })
})

describe('structured output details', () => {
  const wire = WIRES[0]

  it('validates with zod and returns the parsed value (defaults and transforms applied)', async () => {
    const schema = z.object({
      city: z.string().transform(name => name.toUpperCase()),
      celsius: z.number().int(),
      unit: z.enum(['C', 'F']).default('C'),
    })
    wire.enqueue(answer({ city: 'Ljubljana', celsius: 21.5 }), answer({ city: 'Ljubljana', celsius: 21 }))
    const stats = await run(wire, { schema })
    expect(stats.output).toEqual({ city: 'LJUBLJANA', celsius: 21, unit: 'C' })
    const [first, second] = wire.requests()
    // The model sees zod's JSON Schema (input side: `unit` stays optional) and zod's own message for the bad field.
    const offered = first.tools.find((entry: any) => entry.name === 'final_answer')
    expect(offered.input_schema.properties.unit).toEqual({ type: 'string', enum: ['C', 'F'], default: 'C' })
    expect(offered.input_schema.required).toEqual(['city', 'celsius'])
    expect(JSON.stringify(second)).toMatch(/celsius: [^"]*int/i)
  })

  it('refuses a zod 3 schema with a clear error naming the fix', async () => {
    const { z: z3 } = await import('zod/v3')
    expect(() => createAgent({ provider: wire.provider(), behavior: { schema: z3.object({ a: z3.string() }) as never } }))
      .toThrow(/behavior\.schema.*zod 3 schema: install zod 4, or with zod 3\.25 import \{ z \} from 'zod\/v4'/)
  })

  it('carries a non-object schema in `value` and unwraps it', async () => {
    wire.enqueue(answer({ value: ['a', 'b'] }))
    const stats = await run(wire, { schema: { type: 'array', items: { type: 'string' }, minItems: 1 } })
    expect(stats.output).toEqual(['a', 'b'])
    const offered = wire.requests()[0].tools.find((entry: any) => entry.name === 'final_answer')
    expect(offered.input_schema).toEqual({ type: 'object', properties: { value: { type: 'array', items: { type: 'string' }, minItems: 1 } }, required: ['value'], additionalProperties: false })
  })

  it('takes a JSON text answer that matches, and repairs a text answer that does not', async () => {
    wire.enqueue({ text: '```json\n{"city": "Ljubljana", "celsius": 21}\n```' })
    const direct = await run(wire, { schema: WEATHER })
    expect(direct.stopReason).toBe('completed')
    expect(direct.output).toEqual({ city: 'Ljubljana', celsius: 21 })

    claude.requests.length = 0
    wire.enqueue({ text: 'It is sunny and 21 degrees.' }, answer({ city: 'Ljubljana', celsius: 21 }))
    const repaired = await run(wire, { schema: WEATHER })
    expect(repaired.output).toEqual({ city: 'Ljubljana', celsius: 21 })
    const second = JSON.stringify(wire.requests()[1])
    expect(second).toContain('Your final answer was not accepted: (output): the answer was text, not a call to final_answer')
  })

  it('keeps the raw text when the last allowed turn gives no valid output', async () => {
    wire.enqueue({ text: 'Sunny, about 21.' })
    const stats = await run(wire, { schema: WEATHER, maxTurns: 1 })
    expect(stats.stopReason).toBe('output-invalid')
    expect(stats.text).toBe('Sunny, about 21.')
    expect(stats.outputError?.problems).toEqual(['(output): the answer was text, not a call to final_answer'])
  })

  it('refuses a host tool that takes the final-answer tool\'s name', async () => {
    const clash = tool({ name: 'final_answer', description: 'mine', input: z.object({}), execute: () => 'x' })
    const agent = createAgent({ provider: wire.provider(), tools: { clash }, behavior: { schema: WEATHER } })
    await expect(agent.run({ prompt: 'go' })).rejects.toThrow('Policy "structured-output" brings a tool named "final_answer", but the run already has a tool of that name')
    await agent.destroy()
  })

  it('leaves runs without a schema as they were: no final-answer tool, free text', async () => {
    wire.enqueue({ text: '{"city": "Ljubljana"}' })
    const stats = await run(wire, {})
    expect(stats.output).toBeUndefined()
    expect(stats.text).toBe('{"city": "Ljubljana"}')
    expect(wire.requests()[0].tools).toBeUndefined()
  })
})

describe('structured output of a subagent', () => {
  it('surfaces the child\'s validated output on ChildRunStats.output; the parent\'s schema is not inherited', async () => {
    const { createSpawnTool } = await import('../../src/tools/spawn')
    const childSchema = { type: 'object', properties: { files: { type: 'integer' } }, required: ['files'] }
    const spawn = createSpawnTool({ child: { provider: openai({ baseURL: oai.url, apiKey: 'test-key', defaultModel: 'gpt-5.2' }), behavior: { schema: childSchema } } })
    const plain = createSpawnTool({ child: { provider: openai({ baseURL: oai.url, apiKey: 'test-key', defaultModel: 'gpt-5.2' }) } })
    // Parent: spawn a counting child and a plain child, then answer with its own schema.
    claude.enqueue(
      { type: 'turn', turn: { toolCalls: [{ name: 'spawn', input: { task: 'count the files' } }] } },
      { type: 'turn', turn: { toolCalls: [{ name: 'ask', input: { task: 'say hi' } }] } },
      { type: 'turn', turn: { toolCalls: [{ name: 'final_answer', input: { city: 'Ljubljana', celsius: 21 } }] } },
    )
    oai.enqueue(
      { type: 'turn', turn: { toolCalls: [{ name: 'final_answer', input: { files: 12 } }] } },
      { type: 'turn', turn: { text: 'hi' } },
    )
    const agent = createAgent({
      provider: anthropic({ baseURL: claude.url, apiKey: 'test-key', defaultModel: 'claude-sonnet-4-6' }),
      tools: { spawn, ask: { ...plain, spec: { ...plain.spec, name: 'ask' } } },
      behavior: { schema: WEATHER },
    })
    const stats = await agent.run({ prompt: 'go' })
    await agent.destroy()
    expect(stats.output).toEqual({ city: 'Ljubljana', celsius: 21 })
    expect(stats.children).toHaveLength(2)
    const [counted, greeted] = stats.children!
    expect(counted.output).toEqual({ files: 12 })
    expect(counted.stats.output).toEqual({ files: 12 })
    expect(greeted.output).toBeUndefined()
    expect(greeted.stats.text).toBe('hi')
    expect(greeted.stats.stopReason).toBe('completed')
    // The parent model read the child's output as JSON, and the plain child was offered no final-answer tool.
    expect(JSON.stringify(claude.requests[1].body)).toContain(JSON.stringify(JSON.stringify({ files: 12 })).slice(1, -1))
    expect(oai.requests[0].body.tools.map((entry: any) => entry.function.name)).toContain('final_answer')
    expect(oai.requests[1].body.tools.map((entry: any) => entry.function.name)).not.toContain('final_answer')
  })
})
