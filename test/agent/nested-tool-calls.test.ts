import type { AgentHookMap, BehaviorPolicy, NestedToolCallResult, ToolContext, ToolDef } from '../../src'
import type { ToolResultBlock } from '../../src/core/content'
import type { ToolAfterContext, ToolHookContext } from '../../src/hooks/hook-map'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { createCallTool } from '../../src/tools'
import { deferred } from '../support/helpers'

// `ToolContext.callTool`: a tool calls another tool through the path a model's
// call takes. The calling tool here is `router`: it makes the nested calls its
// input lists, in order, and answers with what each returned (as JSON).

interface Planned { name: string, input: Record<string, unknown>, line?: number }

/** `echo { text }`: answers `echo:<text>`, counts its runs and notes the calling call its context names. */
function echoTool(): { def: ToolDef, runs: () => number, parents: (string | undefined)[] } {
  let runs = 0
  const parents: (string | undefined)[] = []
  const def: ToolDef = {
    spec: { name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } },
    execute: (input: { text: string }, ctx) => {
      runs++
      parents.push(ctx.parentToolCallId)
      return `echo:${input.text}`
    },
  }
  return { def, runs: () => runs, parents }
}

/** `router { calls }`: makes each planned nested call and keeps what it got back. */
function routerTool(answers: NestedToolCallResult[]): ToolDef {
  return {
    spec: { name: 'router', description: 'router', inputSchema: { type: 'object' } },
    async execute(input: { calls: Planned[] }, ctx) {
      for (const call of input.calls)
        answers.push(await ctx.callTool(call.name, call.input, call.line === undefined ? {} : { line: call.line }))
      return JSON.stringify(answers.map(answer => answer.output))
    },
  }
}

/** Run one model turn that calls `router` with `calls`, then a text turn; return what each nested call answered. */
async function route(calls: Planned[], options: { tools?: Record<string, ToolDef>, behavior?: object, hooks?: AgentHookMap, policies?: BehaviorPolicy[], toolAliases?: Record<string, string> } = {}) {
  const answers: NestedToolCallResult[] = []
  const echo = echoTool()
  const provider = scriptedProvider([{ toolCalls: [{ id: 'call_r', name: 'router', input: { calls } }] }, { text: 'done' }])
  const session = await createSession()
  const agent = createAgent({
    provider,
    session,
    tools: { router: routerTool(answers), echo: echo.def, ...options.tools },
    behavior: options.behavior,
    hooks: options.hooks,
    policies: options.policies,
    toolAliases: options.toolAliases,
  })
  const stats = await agent.run({ prompt: 'go' })
  const results = session.turns.flatMap(turn => turn.content.filter((block): block is ToolResultBlock => block.type === 'tool_result'))
  return { answers, echo, stats, session, provider, results }
}

describe('toolContext.callTool', () => {
  it('answers a nested call through the tools, hooks and transforms, and records it on the outer result only', async () => {
    const before: ToolHookContext[] = []
    const after: ToolAfterContext[] = []
    const { answers, results, session, provider, echo } = await route([{ name: 'echo', input: { text: 'hi' }, line: 3 }], {
      hooks: {
        'tool:before': ctx => void before.push({ ...ctx }),
        'tool:after': ctx => void after.push({ ...ctx }),
        'tool:transform': (ctx) => {
          if (ctx.parentToolCallId !== undefined)
            ctx.result = `${String(ctx.result)} (transformed)`
        },
      },
    })
    expect(answers).toEqual([{ callId: 'call_r.1', name: 'echo', output: 'echo:hi (transformed)', isError: false, blocked: false, durationMs: expect.any(Number) }])
    expect(echo.parents).toEqual(['call_r'])
    // The hooks see the nested call with its parent and its script line; the model's call has neither.
    expect(before.map(ctx => [ctx.name, ctx.callId, ctx.parentToolCallId, ctx.scriptLine])).toEqual([
      ['router', 'call_r', undefined, undefined],
      ['echo', 'call_r.1', 'call_r', 3],
    ])
    expect(after.map(ctx => [ctx.name, ctx.parentToolCallId, ctx.scriptLine, ctx.result])).toEqual([
      ['echo', 'call_r', 3, 'echo:hi (transformed)'],
      ['router', undefined, undefined, '["echo:hi (transformed)"]'],
    ])
    expect('parentToolCallId' in before[0]).toBe(false)
    // One result in the session, the router's, carrying its nested call; no turn holds the nested call.
    expect(results).toHaveLength(1)
    expect(results[0]).toMatchObject({ callId: 'call_r', calls: [{ id: 'call_r.1', name: 'echo', input: { text: 'hi' }, line: 3, durationMs: expect.any(Number) }] })
    expect(results[0].calls![0].isError).toBeUndefined()
    const toolCalls = session.turns.flatMap(turn => turn.content.filter(block => block.type === 'tool_call'))
    expect(toolCalls).toHaveLength(1)
    // The model reads the router's answer, never the nested result on its own.
    const sent = provider.requests[1].messages.at(-1)!.content as ToolResultBlock[]
    expect(sent.map(block => block.callId)).toEqual(['call_r'])
  })

  it('agent.stream() shows only the model\'s call and its result, not the nested call', async () => {
    const answers: NestedToolCallResult[] = []
    const provider = scriptedProvider([{ toolCalls: [{ id: 'call_r', name: 'router', input: { calls: [{ name: 'echo', input: { text: 'hi' } }] } }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { router: routerTool(answers), echo: echoTool().def } })
    const seen: string[] = []
    for await (const event of agent.stream({ prompt: 'go' })) {
      if (event.type === 'tool-call' || event.type === 'tool-result')
        seen.push(`${event.type} ${event.callId}`)
    }
    expect(answers).toHaveLength(1)
    expect(seen).toEqual(['tool-call call_r', 'tool-result call_r'])
  })

  it('resolves names as the model does: a wire alias, and a call_tool envelope opened to the tool inside', async () => {
    const seen: string[] = []
    const { answers, echo } = await route([
      { name: 'say', input: { text: 'alias' } },
      { name: 'call_tool', input: { name: 'say', arguments: { text: 'envelope' } } },
    ], {
      tools: { call_tool: createCallTool() },
      toolAliases: { echo: 'say' },
      hooks: { 'tool:before': ctx => void seen.push(`${ctx.name}/${ctx.displayName}`) },
    })
    expect(answers.map(answer => [answer.name, answer.output, answer.isError])).toEqual([
      ['echo', 'echo:alias', false],
      ['echo', 'echo:envelope', false],
    ])
    expect(echo.runs()).toBe(2)
    expect(seen).toEqual(['router/router', 'echo/say', 'echo/say'])
  })

  it('is refused by the batch gate, as a batch of one: the tool budget counts the model\'s and the nested calls', async () => {
    const echo = echoTool()
    const answers: NestedToolCallResult[] = []
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'call_e', name: 'echo', input: { text: 'direct' } }] },
      { toolCalls: [{ id: 'call_r', name: 'router', input: { calls: [{ name: 'echo', input: { text: 'nested' } }] } }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: { echo: echo.def, router: routerTool(answers) }, behavior: { toolBudgets: { echo: { max: 1, onExceed: 'block' } } } })
    await agent.run({ prompt: 'go' })
    expect(echo.runs()).toBe(1)
    expect(answers).toEqual([expect.objectContaining({ blocked: true, blockedBy: 'policy', isError: true, output: expect.stringContaining('Blocked: echo has used its budget of 1 call') })])
  })

  it('the repeat guard counts nested calls: the fourth same call is refused', async () => {
    const same = { name: 'echo', input: { text: 'same' } }
    const { answers, echo } = await route([same, same, same, same], { behavior: { repeatGuard: { tools: ['echo'] } } })
    expect(echo.runs()).toBe(3)
    expect(answers.map(answer => answer.blocked)).toEqual([false, false, false, true])
    expect(answers[3]).toMatchObject({ blockedBy: 'policy', output: expect.stringMatching(/^Blocked: /) })
  })

  it('dedup replays a repeated nested call without running it (a substitute, not a refusal)', async () => {
    const same = { name: 'echo', input: { text: 'once' } }
    const { answers, echo } = await route([same, same], { behavior: { dedupTools: { echo: (input: Record<string, unknown>) => String(input.text) } } })
    expect(echo.runs()).toBe(1)
    expect(answers.map(answer => [answer.output, answer.blocked])).toEqual([['echo:once', false], ['echo:once', false]])
  })

  it('is refused by a policy\'s per-call gate', async () => {
    const noEcho: BehaviorPolicy = { name: 'no-echo', gateCall: ({ call }) => call.name === 'echo' ? { decision: { type: 'block', reason: 'echo is switched off' } } : undefined }
    const { answers, echo } = await route([{ name: 'echo', input: { text: 'x' } }], { policies: [noEcho] })
    expect(echo.runs()).toBe(0)
    expect(answers).toEqual([expect.objectContaining({ blocked: true, blockedBy: 'policy', output: 'Blocked: echo is switched off' })])
  })

  it('a policy\'s gates see a nested call as nested (parentToolCallId), and may refuse only those', async () => {
    const seen: (string | undefined)[] = []
    const directOnly: BehaviorPolicy = {
      name: 'direct-only',
      gateBatch: ({ calls }) => {
        seen.push(...calls.map(call => call.parentToolCallId))
        return undefined
      },
      gateCall: ({ call }) => call.parentToolCallId !== undefined && call.name === 'echo' ? { decision: { type: 'block', reason: 'echo only when the model asks' } } : undefined,
    }
    const { answers, echo } = await route([{ name: 'echo', input: { text: 'x' } }], { policies: [directOnly] })
    expect(echo.runs()).toBe(0)
    expect(answers).toEqual([expect.objectContaining({ blocked: true, blockedBy: 'policy', output: 'Blocked: echo only when the model asks' })])
    // The model's own call (the router) comes with no parent; the nested one names the router's call.
    expect(seen[0]).toBeUndefined()
    expect(seen[1]).toEqual(expect.any(String))
  })

  it('is refused by the host\'s tool:gate, which sees it as nested', async () => {
    const { answers, echo } = await route([{ name: 'echo', input: { text: 'x' } }], {
      hooks: { 'tool:gate': (ctx) => {
        if (ctx.parentToolCallId === 'call_r') {
          ctx.block = true
          ctx.reason = 'no nested echo'
        }
      } },
    })
    expect(echo.runs()).toBe(0)
    expect(answers).toEqual([expect.objectContaining({ blocked: true, blockedBy: 'host', output: 'Blocked: no nested echo' })])
  })

  it('is refused by input validation, and by the loop for an unknown tool', async () => {
    const { answers, echo, results } = await route([{ name: 'echo', input: { text: 7 } }, { name: 'nope', input: {} }])
    expect(echo.runs()).toBe(0)
    expect(answers[0]).toMatchObject({ blocked: true, blockedBy: 'loop', isError: true, output: expect.stringMatching(/^Invalid arguments for echo: .*text/) })
    expect(answers[1]).toMatchObject({ blocked: true, blockedBy: 'loop', output: expect.stringContaining('there is no tool named "nope"') })
    expect(results[0].calls!.map(call => [call.id, call.name, call.isError])).toEqual([['call_r.1', 'echo', true], ['call_r.2', 'nope', true]])
  })

  it('a tool that calls itself ends at the depth cap with a clear error, every level recorded', async () => {
    const recurse: ToolDef = {
      spec: { name: 'recurse', description: 'recurse', inputSchema: { type: 'object' } },
      async execute(_input, ctx) {
        const inner = await ctx.callTool('recurse', {})
        return inner.isError ? inner.output : `ok(${String(inner.output)})`
      },
    }
    const provider = scriptedProvider([{ toolCalls: [{ id: 'c', name: 'recurse', input: {} }] }, { text: 'done' }])
    const session = await createSession()
    const stats = await createAgent({ provider, session, tools: { recurse } }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    const result = session.turns.flatMap(turn => turn.content).find((block): block is ToolResultBlock => block.type === 'tool_result')!
    // The model's call and eight nested levels ran; the ninth level was refused before it started,
    // and the eighth passed the refusal up as it got it.
    expect(result.output).toBe(`${'ok('.repeat(8)}Error: recurse was not run: tools calling tools nest at most 8 deep, and this call would be 9 deep.${')'.repeat(8)}`)
    expect(result.calls!.map(call => call.id)).toEqual(Array.from({ length: 9 }, (_, index) => `c${'.1'.repeat(index + 1)}`))
    expect(result.calls!.map(call => call.isError === true)).toEqual([...Array.from({ length: 8 }).fill(false), true])
  })

  it('a tool looping on callTool runs 10,000 nested calls; each later one is refused unrun and unrecorded, and the turn is stored', async () => {
    const echo = echoTool()
    const answers: NestedToolCallResult[] = []
    const flood: ToolDef = {
      spec: { name: 'flood', description: 'flood', inputSchema: { type: 'object' } },
      async execute(_input, ctx) {
        for (let i = 0; i < 10_003; i++)
          answers.push(await ctx.callTool('echo', { text: String(i) }))
        return 'flooded'
      },
    }
    const provider = scriptedProvider([{ toolCalls: [{ id: 'f', name: 'flood', input: {} }] }, { text: 'done' }])
    const session = await createSession()
    const stats = await createAgent({ provider, session, tools: { flood, echo: echo.def } }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(echo.runs()).toBe(10_000)
    expect(answers.slice(0, 10_000).every(answer => !answer.isError && !answer.blocked)).toBe(true)
    expect(answers.slice(10_000)).toEqual([10_001, 10_002, 10_003].map(n => ({
      callId: `f.${n}`,
      name: 'echo',
      output: 'Error: echo was not run: one call of the model may make at most 10,000 nested tool calls in all (its tool\'s and theirs), and this would be one more.',
      isError: true,
      blocked: true,
      blockedBy: 'loop',
      durationMs: 0,
    })))
    const result = session.turns.flatMap(turn => turn.content).find((block): block is ToolResultBlock => block.type === 'tool_result')!
    expect(result.output).toBe('flooded')
    expect(result.calls).toHaveLength(10_000)
    expect(result.calls!.at(-1)).toMatchObject({ id: 'f.10000', input: { text: '9999' } })
  })

  it('a nested call the caller cancels ends alone; the run goes on', async () => {
    const started = deferred()
    const slow: ToolDef = {
      spec: { name: 'slow', description: 'slow', inputSchema: { type: 'object' } },
      execute: (_input, ctx) => new Promise((_resolve, reject) => {
        started.resolve()
        ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))
      }),
    }
    const caller: ToolDef = {
      spec: { name: 'caller', description: 'caller', inputSchema: { type: 'object' } },
      async execute(_input, ctx) {
        const controller = new AbortController()
        const pending = ctx.callTool('slow', {}, { signal: controller.signal })
        await started.promise
        controller.abort()
        const answered = await pending
        return `${answered.isError}:${String(answered.output)}`
      },
    }
    const provider = scriptedProvider([{ toolCalls: [{ id: 'c', name: 'caller', input: {} }] }, { text: 'done' }])
    const stats = await createAgent({ provider, tools: { caller, slow } }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    const sent = provider.requests[1].messages.at(-1)!.content as ToolResultBlock[]
    expect(sent[0].output).toBe('true:Aborted: the tool that made this call cancelled it while this tool was running.')
  })

  it('a nested call still in flight when its caller finishes is cut and recorded as an error; a later one is refused', async () => {
    let slowSignal: AbortSignal | undefined
    const slow: ToolDef = {
      spec: { name: 'slow', description: 'slow', inputSchema: { type: 'object' } },
      execute: (_input, ctx) => {
        slowSignal = ctx.signal
        return new Promise(() => {})
      },
    }
    let kept: ToolContext | undefined
    const hasty: ToolDef = {
      spec: { name: 'hasty', description: 'hasty', inputSchema: { type: 'object' } },
      execute: (_input, ctx) => {
        kept = ctx
        void ctx.callTool('slow', {})
        return 'left early'
      },
    }
    const provider = scriptedProvider([{ toolCalls: [{ id: 'h', name: 'hasty', input: {} }] }, { text: 'done' }])
    const session = await createSession()
    const stats = await createAgent({ provider, session, tools: { hasty, slow } }).run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(slowSignal!.aborted).toBe(true)
    const result = session.turns.flatMap(turn => turn.content).find((block): block is ToolResultBlock => block.type === 'tool_result')!
    expect(result).toMatchObject({ output: 'left early', calls: [{ id: 'h.1', name: 'slow', isError: true }] })
    expect(await kept!.callTool('slow', {})).toEqual({
      callId: 'h.2',
      name: 'slow',
      output: 'Error: slow was not run: the tool that called it (h) has already finished.',
      isError: true,
      blocked: true,
      blockedBy: 'loop',
      durationMs: 0,
    })
  })

  it('honours the run\'s abort: the nested call in flight ends, and the run ends as aborted', async () => {
    const started = deferred()
    let nestedSignal: AbortSignal | undefined
    const slow: ToolDef = {
      spec: { name: 'slow', description: 'slow', inputSchema: { type: 'object' } },
      execute: (_input, ctx) => {
        nestedSignal = ctx.signal
        started.resolve()
        return new Promise(() => {})
      },
    }
    const caller: ToolDef = {
      spec: { name: 'caller', description: 'caller', inputSchema: { type: 'object' } },
      async execute(_input, ctx) {
        await ctx.callTool('slow', {})
        return 'never read'
      },
    }
    const provider = scriptedProvider([{ toolCalls: [{ id: 'c', name: 'caller', input: {} }] }, { text: 'done' }])
    const session = await createSession()
    const agent = createAgent({ provider, session, tools: { caller, slow } })
    const run = agent.run({ prompt: 'go' })
    await started.promise
    agent.abort()
    expect((await run).stopReason).toBe('aborted')
    expect(nestedSignal!.aborted).toBe(true)
    const result = session.turns.flatMap(turn => turn.content).find((block): block is ToolResultBlock => block.type === 'tool_result')!
    expect(result).toMatchObject({ callId: 'c', isError: true, output: 'Aborted: the run was cancelled while this tool was running.', calls: [{ id: 'c.1', name: 'slow', isError: true }] })
    expect(provider.requests).toHaveLength(1)
  })
})
