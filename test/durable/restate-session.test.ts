import type { SessionTurn } from '../../src/core/content'
import type { ServedEndpoint } from '../support/restate-endpoint'
import type { RestateServer } from '../support/restate-server'
import * as restate from '@restatedev/restate-sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openJournaledStore } from '../../src/durable/restate/journaled-store'
import { restateRuntime } from '../../src/durable/restate/runtime'
import { createMemoryStore } from '../../src/session/stores'
import { serveEndpoint } from '../support/restate-endpoint'
import { startRestateServer } from '../support/restate-server'

// The session store as one invocation sees it: pinned to the head the first
// attempt journaled, every write a journaled step, and the one write a dead
// worker may have done without journaling it not done twice.

const backend = createMemoryStore()
const attempts: Record<string, number> = {}
const writes: string[] = []
const observed = new Proxy(backend, {
  get(target, key, receiver) {
    const value = Reflect.get(target, key, receiver)
    if (key === 'appendTurns' || key === 'saveRun') {
      return (...args: unknown[]) => {
        writes.push(`${String(key)}:${(args[1] as SessionTurn[]).length ?? ''}`)
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    }
    return value
  },
})

const turn = (id: string, text: string): SessionTurn => ({ id, role: 'user', content: [{ type: 'text', text }], createdAt: 1 })

const sessions = restate.object({
  name: 'sessions',
  handlers: {
    /** Append two turns in two writes; the first attempt also writes a third turn itself (a write the journal never saw) and dies. */
    write: async (ctx: restate.ObjectContext) => {
      const key = ctx.key
      attempts[key] = (attempts[key] ?? 0) + 1
      const runtime = restateRuntime(ctx, { startedAt: await ctx.date.now() })
      const { store, head } = await openJournaledStore(observed, key, runtime)
      const loaded = await store.load(key)
      await store.appendTurns(key, [turn(`${key}-1`, 'one')])
      if (attempts[key] === 1) {
        // Done, then the worker died before the journal had it.
        await backend.appendTurns(key, [turn(`${key}-2`, 'two')])
        throw new Error('worker lost (simulated)')
      }
      await store.appendTurns(key, [turn(`${key}-2`, 'two')])
      return { head, loadedTurns: loaded?.turns.length, hasLease: 'acquireLease' in store }
    },
  },
})

let server: RestateServer
let endpoint: ServedEndpoint

beforeAll(async () => {
  server = await startRestateServer()
  endpoint = await serveEndpoint([sessions])
  await server.register(endpoint.url)
}, 30_000)

afterAll(async () => {
  await endpoint?.close()
  await server?.stop()
})

describe('the journaled session store', () => {
  it('a replay starts from the journaled head, writes nothing twice, and keeps no lease', async () => {
    await backend.create({ id: 's1', createdAt: 1 })
    await backend.appendTurns('s1', [turn('s1-0', 'zero')])
    const result = await server.call<any>('/sessions/s1/write')
    expect(attempts.s1).toBe(2)
    // The head says one turn, although the first attempt had stored three when the replay loaded.
    expect(result.head.turns).toBe(1)
    expect(result.loadedTurns).toBe(1)
    expect(result.hasLease).toBe(false)
    const data = await backend.load('s1')
    expect(data!.turns.map(t => t.id)).toEqual(['s1-0', 's1-1', 's1-2'])
    // Turn 1's journaled write ran once (not again on the replay); turn 2's write, the replay's first live
    // one, found the turn the dead attempt had stored and did not store it again.
    expect(writes.filter(w => w.startsWith('appendTurns'))).toEqual(['appendTurns:1'])
  })

  it('creates a missing session in the journaled open step', async () => {
    const result = await server.call<any>('/sessions/fresh/write')
    expect(result.head).toEqual({ turns: 0, runs: [] })
    expect((await backend.load('fresh'))!.turns.map(t => t.id)).toEqual(['fresh-1', 'fresh-2'])
  })
})
