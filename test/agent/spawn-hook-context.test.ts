import type { SpawnHookContext } from '../../src/types'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { createSpawnTool } from '../../src/tools/spawn'

// `npm run typecheck` compiles this file: the type assertions are the contract's
// optional fields, and the runs check what the spawn tool fills in.

describe('the spawn hook context', () => {
  it('types callId, depth and tracingContext as optional, as the contract does', () => {
    expectTypeOf<SpawnHookContext['callId']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<SpawnHookContext['depth']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<SpawnHookContext['tracingContext']>().toEqualTypeOf<Record<string, string> | undefined>()
    expectTypeOf<SpawnHookContext['id']>().toEqualTypeOf<string>()
    expectTypeOf<SpawnHookContext['task']>().toEqualTypeOf<string>()
  })

  it('lets a host fire a spawn event without a call id or a trace carrier, and stream it', async () => {
    const agent = createAgent({ provider: scriptedProvider([{ text: 'ok' }]) })
    const seen: SpawnHookContext[] = []
    agent.hooks.hook('spawn:before', ctx => void seen.push(ctx))
    await agent.hooks.callHook('spawn:before', { runId: 'run-1', id: 'child-1', task: 'by hand' })
    expect(seen).toEqual([expect.objectContaining({ id: 'child-1', task: 'by hand' })])
    expect(seen[0].callId).toBeUndefined()
  })

  it('is filled by the spawn tool: the call id, the depth, and a carrier whose keys reach the child', async () => {
    const childProvider = scriptedProvider([{ text: 'child answer' }])
    const spawn = createSpawnTool({ child: { provider: childProvider } })
    const provider = scriptedProvider([{ toolCalls: [{ name: 'spawn', input: { task: 'look' }, id: 'call_9' }] }, { text: 'done' }])
    const before: SpawnHookContext[] = []
    const childStart: Record<string, unknown>[] = []
    const agent = createAgent({
      provider,
      tools: { spawn },
      hooks: {
        'spawn:before': (ctx) => {
          before.push({ ...ctx, tracingContext: { ...ctx.tracingContext } })
          ctx.tracingContext!.traceparent = '00-trace-span-01'
        },
        'child:agent:start': ctx => void childStart.push(ctx as never),
      },
    })
    await agent.run({ prompt: 'go' })
    expect(before).toEqual([expect.objectContaining({ id: 'child-1', callId: 'call_9', depth: 1, tracingContext: {} })])
    expect(childStart[0]).toMatchObject({ tracingContext: { traceparent: '00-trace-span-01' } })
  })
})
