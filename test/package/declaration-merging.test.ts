import type { AgentHookMap, RunHookContext, StopReason } from 'zidane'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createAgent, definePolicy } from '../../src'
import { AgentPolicyError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { echoTool, toolLoop } from '../support/helpers'

// A host adds a stop reason and an event the way a consumer project would:
// by merging into `StopReasons` and `AgentEventMap` of the package (`zidane`
// resolves to the sources here; the docs sample in docs/policies.md does the
// same against the built package). `npm run typecheck` compiles this file, so
// a registry that stops deriving the public types fails it there.

interface QuotaWarningContext extends RunHookContext {
  used: number
  limit: number
}

declare module 'zidane' {
  interface StopReasons {
    'quota-exhausted': true
  }
  interface AgentEventMap {
    'quota:warning': (ctx: QuotaWarningContext) => void
  }
}

/** Ends the run after `limit` turns with the host's own stop reason, announcing it on the host's own event. */
function quota(limit: number, declareEvent = true) {
  return definePolicy<{ used: number }>({
    name: 'quota',
    events: declareEvent ? ['quota:warning'] : undefined,
    initialState: () => ({ used: 0 }),
    afterTurn({ state }) {
      const used = state.used + 1
      if (used < limit)
        return { state: { used } }
      return {
        state: { used },
        events: [{ hook: 'quota:warning', context: { used, limit } }],
        decision: { type: 'stop', reason: 'quota-exhausted' },
      }
    },
  })
}

describe('declaration merging: a host\'s stop reasons and events', () => {
  it('types them as the built-in ones, and the union stays closed', () => {
    expectTypeOf<Extract<StopReason, 'quota-exhausted'>>().toEqualTypeOf<'quota-exhausted'>()
    expectTypeOf<Extract<StopReason, 'completed'>>().toEqualTypeOf<'completed'>()
    // @ts-expect-error a stop reason nobody declared is still refused
    const unknown: StopReason = 'no-such-reason'
    expect(unknown).toBe('no-such-reason')
    const hooks: AgentHookMap = {
      'quota:warning': ctx => expectTypeOf(ctx.used).toEqualTypeOf<number>(),
      // Subagents' re-emissions derive from the same registry.
      'child:quota:warning': ctx => expectTypeOf(ctx.childId).toEqualTypeOf<string>(),
    }
    expect(Object.keys(hooks)).toHaveLength(2)
  })

  it('a host policy stops the run with its reason and fires its event, which hook maps may name', async () => {
    const seen: QuotaWarningContext[] = []
    const agent = createAgent({
      provider: scriptedProvider(toolLoop(5, 'echo')),
      tools: { echo: echoTool('echo') },
      policies: [quota(2)],
      hooks: { 'quota:warning': ctx => void seen.push(ctx) },
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('quota-exhausted')
    expect(stats.turns).toBe(2)
    expect(seen).toEqual([expect.objectContaining({ used: 2, limit: 2, runId: expect.any(String), depth: 0 })])
  })

  it('refuses a hook map naming an event no policy of the agent declares', () => {
    const provider = scriptedProvider([])
    expect(() => createAgent({ provider, policies: [quota(2, false)], hooks: { 'quota:warning': () => {} } })).toThrow(/Unknown hook "quota:warning"/)
    expect(() => createAgent({ provider, policies: [quota(2)], hooks: { 'child:quota:warning': () => {} } })).not.toThrow()
  })

  it('refuses an `events` list that is not event names', () => {
    const provider = scriptedProvider([])
    for (const events of ['quota:warning', [''], ['child:quota:warning'], [3]])
      expect(() => createAgent({ provider, policies: [{ name: 'bad', events: events as never }] })).toThrow(AgentPolicyError)
  })
})
