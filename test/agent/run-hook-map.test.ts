import type { AgentHookName, DecideHookContext, RunHookMap, StreamDeltaContext, TurnAfterContext } from '../../src'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'

// The type assertions here are checked by `npm run typecheck`; the run checks the handlers fire with those contexts.
describe('per-run hooks are typed by event', () => {
  it('keys are the agent\'s event names and each handler gets its event\'s context', async () => {
    expectTypeOf<keyof RunHookMap>().toEqualTypeOf<AgentHookName>()
    const turns: number[] = []
    const deltas: string[] = []
    const hooks: RunHookMap = {
      'turn:after': (ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<TurnAfterContext & DecideHookContext>()
        turns.push(ctx.turn)
      },
      'stream:text': [(ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<StreamDeltaContext & DecideHookContext>()
        deltas.push(ctx.delta)
      }],
      'child:turn:after': ctx => void expectTypeOf(ctx.childId).toEqualTypeOf<string>(),
    }
    const agent = createAgent({ provider: scriptedProvider([{ text: ['he', 'llo'] }]) })
    await agent.run({ prompt: 'p', hooks })
    expect(turns).toEqual([1])
    expect(deltas).toEqual(['he', 'llo'])
  })

  it('refuses, at compile time, a field the event does not carry', () => {
    const hooks: RunHookMap = {
      // @ts-expect-error `turn:after` has no `delta`
      'turn:after': ctx => void ctx.delta,
    }
    expect(Object.keys(hooks)).toEqual(['turn:after'])
  })
})
