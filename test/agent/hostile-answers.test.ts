import type { Provider, ToolDef } from '../../src'
import type { ToolResultBlock } from '../../src/core/content'
import type { ScriptedProvider } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent } from '../../src'
import { TOOL_PROGRESS_LIMITS } from '../../src/core/tool-io'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { createSpawnTool, createToolSearchTool } from '../../src/tools'

// What a model's answer asks of the agent-level tools (spawn, tool_search) and
// of structured output: whatever it writes, the run ends with a stop reason,
// each call is paired with a bounded result, and the session can store it.

/** The first tool result of request `index`. */
function resultOf(provider: ScriptedProvider, index: number): ToolResultBlock {
  for (const message of provider.requests[index].messages) {
    for (const block of message.content as { type: string }[]) {
      if (block.type === 'tool_result')
        return block as ToolResultBlock
    }
  }
  throw new Error(`request ${index} carries no tool result`)
}

describe('spawn: the model names what the host configured', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('a `model` of "%s" is an unknown choice, not a member of Object.prototype', async (model) => {
    const child = scriptedProvider([{ text: 'child answer' }])
    const spawn = createSpawnTool({ child: { provider: child }, models: { fast: 'fast-model' } })
    const provider = scriptedProvider([{ toolCalls: [{ id: 'c1', name: 'spawn', input: { task: 'do it', model } }] }, { text: 'done' }])
    const stats = await createAgent({ provider, tools: { spawn } }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    const result = resultOf(provider, 1)
    expect(result.callId).toBe('c1')
    expect(result.isError).toBe(true)
    expect(String(result.output)).toContain(`Unknown model choice "${model}"; use one of: fast`)
    expect(child.requests).toHaveLength(0)
  })

  it('repeats only the start of a megabyte `model` or `resume` label in its error', async () => {
    const huge = 'm'.repeat(1_000_000)
    const child = scriptedProvider([])
    const spawn = createSpawnTool({ child: { provider: child }, models: { fast: 'fast-model' } })
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'spawn', input: { task: 'do it', model: huge } }] },
      { toolCalls: [{ id: 'c2', name: 'spawn', input: { task: 'do it', resume: huge } }] },
      { text: 'done' },
    ])
    const stats = await createAgent({ provider, tools: { spawn }, session: await createSession() }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    for (const index of [1, 2]) {
      const output = String(resultOf(provider, index).output)
      expect(output).toContain('(1000000 characters)')
      expect(output.length).toBeLessThan(1000)
    }
    expect(child.requests).toHaveLength(0)
  })
})

describe('spawn: settings that compare false with everything', () => {
  it.each(['maxDepth', 'maxConcurrent', 'timeoutMs'])('refuses a NaN %s when the tool is made', (key) => {
    expect(() => createSpawnTool({ [key]: Number.NaN })).toThrow(new TypeError(`createSpawnTool: ${key} must be a number, got NaN`))
  })
})

describe('tool_search: a query that matches nothing', () => {
  it('answers a megabyte query with a short result', async () => {
    const search = createToolSearchTool({
      catalog: [{ name: 'alpha', wireName: 'alpha', description: 'the first tool', inputSchema: { type: 'object' } }],
      unlocked: new Set(),
    })
    const provider = scriptedProvider([{ toolCalls: [{ id: 's1', name: 'tool_search', input: { query: 'zq'.repeat(500_000) } }] }, { text: 'done' }])
    const stats = await createAgent({ provider, tools: { tool_search: search } }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    const output = String(resultOf(provider, 1).output)
    expect(output).toContain('No searchable tool matched "zqzq')
    expect(output).toContain('(1000000 characters)')
    expect(output.length).toBeLessThan(1000)
  })
})

describe('structured output: an answer nested past the tool-argument bound', () => {
  const tooDeep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`

  it.each([
    ['a JSON Schema that takes any array', { type: 'array' }],
    ['a JSON Schema that takes anything', {}],
    ['a zod array of unknowns', z.array(z.unknown())],
  ])('a text answer 200,000 levels deep is repaired, not kept, with %s', async (_label, schema) => {
    const session = await createSession()
    const provider = scriptedProvider([{ text: tooDeep(200_000) }, { text: '[[1], [2]]' }])
    const stats = await createAgent({ provider, session, behavior: { schema } }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    expect(stats.output).toEqual([[1], [2]])
    // The repair message names the bound; the deep value never became the output.
    const repair = JSON.stringify(provider.requests[1].messages.at(-1))
    expect(repair).toContain('nested more than 100 levels deep')
    expect(session.runs.at(-1)?.status).toBe('completed')
  })

  it('keeps an answer exactly 100 levels deep', async () => {
    const provider = scriptedProvider([{ text: tooDeep(100) }])
    const stats = await createAgent({ provider, behavior: { schema: { type: 'array' } } }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(JSON.stringify(stats.output)).toBe(tooDeep(100))
  })
})

describe('tool calls as a provider hands them over', () => {
  /** A provider that plays the script but replaces each call's `input` with `input`, as a host's own provider passing a server's value through would. */
  function handingOver(script: ScriptedProvider, input: unknown): Provider {
    return {
      name: script.name,
      meta: script.meta,
      capabilities: script.capabilities,
      async stream(request, callbacks) {
        const result = await script.stream(request, callbacks)
        return {
          ...result,
          toolCalls: result.toolCalls.map(call => ({ ...call, input: input as Record<string, unknown> })),
          content: result.content.map(block => block.type === 'tool_call' ? { ...block, input: input as Record<string, unknown> } : block),
        }
      },
    }
  }

  it.each([
    ['null', null, 'null'],
    ['a list', [1, 2], 'a list'],
    ['a string', 'go', 'a string'],
    ['a number', 42, 'a number'],
    ['undefined', undefined, 'nothing'],
  ])('arguments that are %s get an error result, and the session stores the turn', async (_label, input, kind) => {
    let ran = 0
    const probe = { spec: { name: 'probe', description: 'x', inputSchema: { type: 'object', properties: {} } }, execute: () => `ran ${++ran}` }
    const script = scriptedProvider([{ toolCalls: [{ id: 'c1', name: 'probe', input: {} }] }, { text: 'done' }])
    const session = await createSession()
    const stats = await createAgent({ provider: handingOver(script, input), tools: { probe }, session }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    expect(ran).toBe(0)
    const result = resultOf(script, 1)
    expect(result.callId).toBe('c1')
    expect(result.isError).toBe(true)
    expect(String(result.output)).toContain(`arguments are not a JSON object (the provider handed over ${kind})`)
    expect(session.turns.map(turn => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
  })
})

describe('an answer of many calls sharing one id', () => {
  it('a server numbering every answer from call_0: each turn takes the first name no earlier call has', async () => {
    const probe = { spec: { name: 'probe', description: 'x', inputSchema: { type: 'object', properties: {} } }, execute: () => 'ok' }
    const call = (id: string) => ({ id, name: 'probe', input: {} })
    const provider = scriptedProvider([
      { toolCalls: [call('call_0')] },
      { toolCalls: [call('call_0'), call('call_0_3')] },
      { toolCalls: [call('call_0')] },
      { toolCalls: [call('call_0'), call('call_0')] },
      { text: 'done' },
    ])
    const session = await createSession()
    const stats = await createAgent({ provider, tools: { probe }, session }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    const recorded = session.turns.flatMap(turn => (turn.content as { type: string, id: string }[]).filter(block => block.type === 'tool_call').map(block => block.id))
    expect(recorded).toEqual(['call_0', 'call_0_2', 'call_0_3', 'call_0_4', 'call_0_5', 'call_0_6'])
    const answered = session.turns.flatMap(turn => (turn.content as ToolResultBlock[]).filter(block => block.type === 'tool_result').map(block => block.callId))
    expect(answered).toEqual(recorded)
  })

  it('names 20,000 calls sharing one id in linear time, each paired with its own result', async () => {
    const count = 20_000
    const probe = { spec: { name: 'probe', description: 'x', inputSchema: { type: 'object', properties: {} } }, isConcurrencySafe: true, execute: () => 'ok' }
    const provider = scriptedProvider([{ toolCalls: Array.from({ length: count }, (_, index) => ({ id: 'dup', name: 'probe', input: { index } })) }, { text: 'done' }])
    // Renaming each repeat used to try every suffix from 2 again: about two minutes for this answer.
    const stats = await createAgent({ provider, tools: { probe } }).run({ prompt: 'go' })

    expect(stats.stopReason).toBe('completed')
    const [, assistant, results] = provider.requests[1].messages
    const callIds = (assistant.content as { type: string, id: string }[]).filter(block => block.type === 'tool_call').map(block => block.id)
    const resultIds = (results.content as ToolResultBlock[]).map(block => block.callId)
    expect(new Set(callIds).size).toBe(count)
    expect(resultIds).toEqual(callIds)
    expect(callIds.slice(0, 3)).toEqual(['dup', 'dup_2', 'dup_3'])
    expect(callIds.at(-1)).toBe(`dup_${count}`)
  })
})

/** A high surrogate with no low one after it, or a low one with no high one before it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

describe('progress reports cut to their limit', () => {
  it('cuts text, kind and tool names without splitting a surrogate pair', async () => {
    // 'a' first, so the limit falls between the two halves of an emoji.
    const long = `a${'\u{1F600}'.repeat(TOOL_PROGRESS_LIMITS.maxTextChars)}`
    const reports: { kind: string, text?: string, tool?: string }[] = []
    const chatty = {
      spec: { name: 'chatty', description: 'x', inputSchema: { type: 'object', properties: {} } },
      execute: async (_input: unknown, ctx: { progress: (update: unknown) => void }) => {
        ctx.progress({ kind: long, text: long, tool: long })
        await new Promise(resolve => setImmediate(resolve))
        return 'ok'
      },
    } as unknown as ToolDef
    const provider = scriptedProvider([{ toolCalls: [{ name: 'chatty', input: {} }] }, { text: 'done' }])
    await createAgent({ provider, tools: { chatty }, hooks: { 'tool:progress': ({ kind, text, tool }) => void reports.push({ kind, text, tool }) } }).run({ prompt: 'go' })

    expect(reports).toHaveLength(1)
    for (const value of [reports[0].kind, reports[0].text!, reports[0].tool!]) {
      expect(value.length).toBeLessThanOrEqual(TOOL_PROGRESS_LIMITS.maxTextChars + 1)
      expect(value).not.toMatch(LONE_SURROGATE)
      expect(value.endsWith('\u{1F600}…')).toBe(true)
    }
  })
})
