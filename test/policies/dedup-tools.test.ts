import type { ToolDef } from '../../src'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { dedupKey, dedupTools } from '../../src/policies/dedup-tools'
import { createSession } from '../../src/session'
import { runPolicyScript, scriptedProvider } from '../../src/testing'
import { probeTool, runOnFakeAnthropic, textsOf } from './budget-support'

const byInput = (input: Readonly<Record<string, unknown>>) => JSON.stringify(input)

describe('dedup-tools (policy harness)', () => {
  it('needs a session and at least one hasher', async () => {
    expect((await runPolicyScript(dedupTools, { behavior: { dedupTools: { probe: byInput } }, steps: [] })).enabled).toBe(false)
    expect((await runPolicyScript(dedupTools, { session: await createSession(), behavior: { dedupTools: {} }, steps: [] })).enabled).toBe(false)
    expect((await runPolicyScript(dedupTools, { session: await createSession(), behavior: { dedupTools: { probe: byInput } }, steps: [] })).enabled).toBe(true)
  })

  it('the hasher contract: a string key replays, undefined / empty / non-string / a throw skip dedup and record nothing', async () => {
    expect(dedupKey(() => 'k', {})).toBe('k')
    const throws = (): string => {
      throw new Error('x')
    }
    for (const hasher of [() => undefined, () => '', () => 42 as never, () => ({}) as never, throws])
      expect(dedupKey(hasher, {})).toBeUndefined()

    const session = await createSession()
    const hit = await runPolicyScript(dedupTools, {
      session,
      behavior: { dedupTools: { probe: byInput } },
      steps: [
        { phase: 'gateCall', call: { name: 'probe', input: { q: 1 } } },
        { phase: 'result', call: { name: 'probe', input: { q: 1 } }, result: 'first answer' },
        { phase: 'gateCall', call: { name: 'probe', input: { q: 1 } } },
        { phase: 'gateCall', call: { name: 'probe', input: { q: 2 } } },
      ],
    })
    expect(hit.steps.map(step => step.phase === 'gateCall' ? step.decision : 'result')).toEqual([undefined, 'result', { type: 'substitute', result: 'first answer' }, undefined])

    const skipped = await runPolicyScript(dedupTools, {
      session,
      behavior: { dedupTools: { probe: () => '' } },
      steps: [
        { phase: 'result', call: { name: 'probe' }, result: 'answer' },
        { phase: 'gateCall', call: { name: 'probe' } },
      ],
    })
    expect(skipped.steps[1]).toMatchObject({ decision: undefined })
    expect(skipped.state).toMatchObject({ last: {} })
  })

  it('errors are never recorded, so a failed call runs again; an undefined key keeps the earlier record', async () => {
    const hasher = (input: Readonly<Record<string, unknown>>) => input.volatile ? undefined : String(input.q)
    const { steps } = await runPolicyScript(dedupTools, {
      session: await createSession(),
      behavior: { dedupTools: { probe: hasher } },
      steps: [
        { phase: 'result', call: { name: 'probe', input: { q: 1 } }, result: 'Error: not read yet', isError: true },
        { phase: 'gateCall', call: { name: 'probe', input: { q: 1 } } },
        { phase: 'result', call: { name: 'probe', input: { q: 1 } }, result: 'good' },
        { phase: 'result', call: { name: 'probe', input: { q: 1, volatile: true } }, result: 'noise' },
        { phase: 'gateCall', call: { name: 'probe', input: { q: 1 } } },
      ],
    })
    expect(steps[1]).toMatchObject({ decision: undefined })
    expect(steps[4]).toMatchObject({ decision: { type: 'substitute', result: 'good' } })
  })

  it('property: a replay happens exactly when the key equals the most recent recorded key of that tool', async () => {
    const call = fc.record({ tool: fc.constantFrom('a', 'b'), key: fc.constantFrom('k1', 'k2', 'k3', ''), fails: fc.boolean() })
    await fc.assert(fc.asyncProperty(fc.array(call, { maxLength: 12 }), async (calls) => {
      const hasher = (input: Readonly<Record<string, unknown>>) => input.key as string
      const steps = calls.flatMap((c, i) => [
        { phase: 'gateCall' as const, call: { name: c.tool, input: { key: c.key, i } } },
        { phase: 'result' as const, call: { name: c.tool, input: { key: c.key, i } }, result: `r${i}`, isError: c.fails },
      ])
      const { steps: out } = await runPolicyScript(dedupTools, { session: await createSession(), behavior: { dedupTools: { a: hasher, b: hasher } }, steps })
      // The model: the last successful call with a non-empty key, per tool.
      const last: Record<string, { key: string, result: string }> = {}
      calls.forEach((c, i) => {
        const gate = out[2 * i]
        const expected = c.key !== '' && last[c.tool]?.key === c.key ? { type: 'substitute', result: last[c.tool].result } : undefined
        expect(gate.phase === 'gateCall' ? gate.decision : 'none').toEqual(expected)
        // The script's result step reports `r<i>` for every call (replayed or not); a success with a key records it.
        if (!c.fails && c.key !== '')
          last[c.tool] = { key: c.key, result: `r${i}` }
      })
    }), { numRuns: 150 })
  })

  it('a new run continues the session\'s cache from its turns', async () => {
    const session = await createSession()
    const probe = probeTool()
    const behavior = { dedupTools: { probe: byInput } }
    const first = createAgent({ provider: scriptedProvider([{ toolCalls: [{ name: 'probe', input: { n: 3 } }] }, { text: 'ok' }]), session, tools: { probe: probe.def }, behavior })
    await first.run({ prompt: 'one' })
    const second = createAgent({ provider: scriptedProvider([{ toolCalls: [{ name: 'probe', input: { n: 3 } }] }, { text: 'ok' }]), session, tools: { probe: probe.def }, behavior })
    await second.run({ prompt: 'two' })
    expect(probe.runs()).toBe(1)
    const results = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result')
    expect(results.map(block => block.output)).toEqual(['xxx', 'xxx'])
  })
})

describe('dedup-tools through createAgent and the Anthropic wire', () => {
  it('a repeated call is replayed without running, through tool:gate result; tool:transform and tool:after still fire', async () => {
    const probe = probeTool()
    const seen: string[] = []
    const { bodies } = await runOnFakeAnthropic({
      turns: [{ toolCalls: [{ id: 'toolu_1', name: 'probe', input: { text: 'fresh' } }] }, { toolCalls: [{ id: 'toolu_2', name: 'probe', input: { text: 'fresh' } }] }],
      tools: { probe: probe.def },
      session: await createSession(),
      behavior: { dedupTools: { probe: byInput } },
      hooks: {
        'tool:gate': ctx => void seen.push(`gate ${ctx.callId} result=${String(ctx.result)}`),
        'tool:transform': ctx => void seen.push(`transform ${ctx.callId} ${String(ctx.result)}`),
        'tool:after': ctx => void seen.push(`after ${ctx.callId} ${String(ctx.result)}`),
      },
    })
    expect(probe.runs()).toBe(1)
    expect(seen).toEqual([
      'gate toolu_1 result=undefined',
      'transform toolu_1 fresh',
      'after toolu_1 fresh',
      'gate toolu_2 result=fresh',
      'transform toolu_2 fresh',
      'after toolu_2 fresh',
    ])
    expect(textsOf(bodies[2]).filter(text => text === 'fresh')).toHaveLength(2)
  })

  it('without a session the map does nothing: every call runs (with one, the second is replayed)', async () => {
    for (const session of [undefined, await createSession()]) {
      const probe = probeTool()
      await runOnFakeAnthropic({
        turns: [1, 2].map(i => ({ toolCalls: [{ id: `toolu_${i}`, name: 'probe', input: {} }] })),
        tools: { probe: probe.def },
        session,
        behavior: { dedupTools: { probe: byInput } },
      })
      expect(probe.runs()).toBe(session ? 1 : 2)
    }
  })

  it('a failed call is not replayed: the retry runs the tool again', async () => {
    let runs = 0
    const flaky: ToolDef = {
      spec: { name: 'flaky', description: 'fails once', inputSchema: { type: 'object', properties: {} } },
      execute: () => {
        runs++
        if (runs === 1)
          throw new Error('not ready')
        return 'ready'
      },
    }
    const { bodies } = await runOnFakeAnthropic({
      turns: [1, 2, 3].map(i => ({ toolCalls: [{ id: `toolu_${i}`, name: 'flaky', input: {} }] })),
      tools: { flaky },
      session: await createSession(),
      behavior: { dedupTools: { flaky: byInput } },
    })
    expect(runs).toBe(2)
    expect(textsOf(bodies[3]).filter(text => text === 'ready')).toHaveLength(2)
  })
})

describe('dedup-tools with reused call ids and the repeat guard', () => {
  /** Two pure tools whose answers differ, so a replay of the wrong one shows. */
  function pricedTools() {
    const runs = { price: 0, news: 0 }
    const make = (name: 'price' | 'news'): ToolDef => ({
      spec: { name, description: name, inputSchema: { type: 'object', properties: { symbol: { type: 'string' } } } },
      execute: (input) => {
        runs[name]++
        return `${name} of ${String(input.symbol)}`
      },
    })
    return { runs, tools: { price: make('price'), news: make('news') } }
  }

  it('pairs a session\'s results with their calls by position when a turn reused a call id', async () => {
    const session = await createSession()
    const { runs, tools } = pricedTools()
    const behavior = { dedupTools: { price: byInput, news: byInput } }
    const first = createAgent({
      provider: scriptedProvider([{ toolCalls: [{ id: 'same', name: 'price', input: { symbol: 'ACME' } }, { id: 'same', name: 'news', input: { symbol: 'ACME' } }] }, { text: 'ok' }]),
      session,
      tools,
      behavior,
    })
    await first.run({ prompt: 'one' })
    expect(runs).toEqual({ price: 1, news: 1 })

    // A fresh agent seeds its cache from the session: each tool must replay its own answer.
    const provider = scriptedProvider([{ toolCalls: [{ id: 'a', name: 'price', input: { symbol: 'ACME' } }, { id: 'b', name: 'news', input: { symbol: 'ACME' } }] }, { text: 'ok' }])
    const second = createAgent({ provider, session, tools, behavior })
    await second.run({ prompt: 'two' })
    expect(runs).toEqual({ price: 1, news: 1 })
    const replayed = (provider.requests[1]!.messages.at(-1)!.content as { type: string, output?: unknown }[]).map(block => block.output)
    expect(replayed).toEqual(['price of ACME', 'news of ACME'])
  })

  it('property: seeding pairs results by position, whatever ids the model reused', async () => {
    const id = fc.constantFrom('x', 'y', 'z')
    await fc.assert(fc.asyncProperty(fc.array(fc.record({ id, tool: fc.constantFrom<'price' | 'news'>('price', 'news'), symbol: fc.constantFrom('A', 'B') }), { minLength: 1, maxLength: 4 }), async (calls) => {
      const session = await createSession()
      const { tools } = pricedTools()
      const behavior = { dedupTools: { price: byInput, news: byInput } }
      await createAgent({ provider: scriptedProvider([{ toolCalls: calls.map(call => ({ id: call.id, name: call.tool, input: { symbol: call.symbol } })) }, { text: 'ok' }]), session, tools, behavior }).run({ prompt: 'one' })
      const provider = scriptedProvider([{ toolCalls: [{ id: 'p', name: 'price', input: { symbol: 'A' } }, { id: 'n', name: 'news', input: { symbol: 'A' } }] }, { text: 'ok' }])
      await createAgent({ provider, session, tools, behavior }).run({ prompt: 'two' })
      const outputs = (provider.requests[1]!.messages.at(-1)!.content as { output?: unknown }[]).map(block => block.output)
      // Whether replayed or run, each tool's answer is its own.
      expect(outputs).toEqual(['price of A', 'news of A'])
    }), { numRuns: 40 })
  })

  it('replays never count toward the repeat guard\'s streak or its global ceiling', async () => {
    const session = await createSession()
    const { runs, tools } = pricedTools()
    const same = { name: 'price', input: { symbol: 'ACME' } }
    const exceeded: unknown[] = []
    const provider = scriptedProvider([...Array.from({ length: 8 }, (_, i) => ({ toolCalls: [{ ...same, id: `c${i}` }] })), { text: 'done' }])
    const agent = createAgent({
      provider,
      session,
      tools,
      behavior: { dedupTools: { price: byInput }, repeatGuard: { tools: ['price'], blockThreshold: 2, abortThreshold: 3, globalCeiling: 3 } },
      hooks: { 'repeat-guard:exceeded': ctx => void exceeded.push(ctx) },
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(exceeded).toEqual([])
    expect(runs.price).toBe(1)
    const outputs = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result').map(block => block.output)
    expect(outputs).toEqual(Array.from({ length: 8 }).fill('price of ACME'))
  })

  it('a replay decided for the whole batch still goes through the host\'s tool:gate, which has the last word', async () => {
    const session = await createSession()
    const { tools } = pricedTools()
    const provider = scriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'price', input: { symbol: 'ACME' } }] },
      { toolCalls: [{ id: 'c2', name: 'price', input: { symbol: 'ACME' } }] },
      { text: 'done' },
    ])
    const gates: unknown[] = []
    const agent = createAgent({
      provider,
      session,
      tools,
      behavior: { dedupTools: { price: byInput } },
      hooks: {
        'tool:gate': (ctx) => {
          gates.push(ctx.result)
          if (ctx.callId === 'c2')
            ctx.result = 'host answer'
        },
      },
    })
    await agent.run({ prompt: 'go' })
    expect(gates).toEqual([undefined, 'price of ACME'])
    const outputs = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result').map(block => block.output)
    expect(outputs).toEqual(['price of ACME', 'host answer'])
  })
})
