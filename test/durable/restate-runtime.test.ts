import type { ServedEndpoint } from '../support/restate-endpoint'
import type { RestateServer } from '../support/restate-server'
import * as restate from '@restatedev/restate-sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { restateRuntime } from '../../src/durable/restate/runtime'
import { AgentProviderError, DurablePayloadTooLargeError } from '../../src/errors'
import { serveEndpoint } from '../support/restate-endpoint'
import { startRestateServer } from '../support/restate-server'

// restateRuntime against the real server: a handler that fails after its
// steps on the first attempt is replayed by Restate, and the replay must
// read every step, clock value and id back from the journal.

const ran: Record<string, number> = {}
const attempts: Record<string, number> = {}
const count = (name: string) => (ran[name] = (ran[name] ?? 0) + 1)
/** What the `killed` handler saw of a step it tried after its invocation was killed. */
const afterKill = new Map<string, { ran: boolean, first?: string, error?: string }>()

/** Fail (retryably) on the first attempt of `key`, after everything it journaled. */
function crashOnce(key: string): void {
  attempts[key] = (attempts[key] ?? 0) + 1
  if (attempts[key] === 1)
    throw new Error('worker lost (simulated)')
}

const probe = restate.object({
  name: 'probe',
  handlers: {
    replay: async (ctx: restate.ObjectContext) => {
      const runtime = restateRuntime(ctx)
      const first = await runtime.step('model:1', async () => ({ text: `answer ${count(`${ctx.key}:model`)}`, at: Date.now() }))
      const at = runtime.now()
      const id = runtime.randomUUID()
      const [a, b] = await Promise.all([
        runtime.step('tool:a', async () => `a${count(`${ctx.key}:a`)}`),
        runtime.step('tool:b', async () => `b${count(`${ctx.key}:b`)}`),
      ])
      crashOnce(ctx.key)
      return { first, at, id, a, b, mode: runtime.mode, maxEntryBytes: runtime.maxEntryBytes }
    },
    oversized: async (ctx: restate.ObjectContext, bytes: number) => {
      const runtime = restateRuntime(ctx, { maxEntryBytes: 1024 })
      const outcome = await runtime.step('tool:big', async () => {
        count(`${ctx.key}:big`)
        return 'x'.repeat(bytes)
      }).then(value => ({ ok: value.length }), (error: unknown) => ({
        error: error instanceof DurablePayloadTooLargeError ? { name: error.name, bytes: error.bytes, maxBytes: error.maxBytes } : String(error),
      }))
      crashOnce(ctx.key)
      return outcome
    },
    killed: async (ctx: restate.ObjectContext) => {
      const after: { ran: boolean, first?: string, error?: string } = { ran: false }
      afterKill.set(ctx.key, after)
      const runtime = restateRuntime(ctx, { onAttemptEnd: () => count(`${ctx.key}:attempt-end`) })
      // Runs until the invocation is killed, as a tool would.
      await runtime.step('tool:long', () => new Promise<void>((resolve) => {
        count(`${ctx.key}:long`)
        ctx.request().attemptCompletedSignal.addEventListener('abort', () => resolve())
      })).catch((error: unknown) => {
        // After a kill the SDK never settles the step's promise: the wait must end with the attempt.
        after.first = (error as Error).name
      })
      await runtime.step('session:write', async () => {
        after.ran = true
      }).catch((error: unknown) => {
        after.error = (error as Error).name
      })
      return 'done'
    },
    failing: async (ctx: restate.ObjectContext) => {
      const runtime = restateRuntime(ctx)
      const outcome = await runtime.step('model:1', async () => {
        count(`${ctx.key}:failing`)
        throw new AgentProviderError('rate limited', { kind: 'rate_limit', status: 429, attempts: 1 })
      }).then(() => 'no error', (error: unknown) => ({
        isProviderError: error instanceof AgentProviderError,
        kind: (error as AgentProviderError).kind,
        status: (error as AgentProviderError).status,
        message: (error as Error).message,
      }))
      crashOnce(ctx.key)
      return outcome
    },
  },
})

let server: RestateServer
let endpoint: ServedEndpoint | undefined

beforeAll(async () => {
  server = await startRestateServer()
  endpoint = await serveEndpoint([probe])
  await server.register(endpoint.url)
}, 30_000)

afterAll(async () => {
  await endpoint?.close()
  await server?.stop()
})

describe('restateRuntime', () => {
  it('replays steps, the clock and ids from the journal instead of running them again', async () => {
    const result = await server.call<any>('/probe/k1/replay')
    expect(attempts.k1).toBe(2)
    // Each step body ran once although the handler ran twice.
    expect([ran['k1:model'], ran['k1:a'], ran['k1:b']]).toEqual([1, 1, 1])
    expect(result.first.text).toBe('answer 1')
    expect([result.a, result.b]).toEqual(['a1', 'b1'])
    expect(result.mode).toBe('replay')
    expect(result.maxEntryBytes).toBe(4 * 1024 * 1024)
    expect(result.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(typeof result.at).toBe('number')
  })

  it('the clock and ids of a replay equal the first attempt\'s: the start time, then each step\'s journaled end', async () => {
    const seen: unknown[] = []
    const clockProbe = restate.object({
      name: 'clockProbe',
      handlers: {
        read: async (ctx: restate.ObjectContext) => {
          const runtime = restateRuntime(ctx, { startedAt: await ctx.date.now() })
          const atStart = runtime.now()
          const id = runtime.randomUUID()
          await runtime.step('wait', () => new Promise(resolve => setTimeout(resolve, 30)))
          const afterStep = runtime.now()
          seen.push({ atStart, id, afterStep })
          crashOnce(`clock:${ctx.key}`)
          return { atStart, id, afterStep }
        },
        unseeded: async (ctx: restate.ObjectContext) => {
          const runtime = restateRuntime(ctx)
          const before = (() => {
            try {
              return runtime.now()
            }
            catch (error) {
              return (error as Error).name
            }
          })()
          const wall = Date.now()
          await runtime.step('first', async () => null)
          return { before, after: runtime.now(), wall }
        },
      },
    })
    const served = await serveEndpoint([clockProbe])
    try {
      await server.register(served.url)
      const result = await server.call<{ atStart: number, id: string, afterStep: number }>('/clockProbe/c1/read')
      expect(attempts['clock:c1']).toBe(2)
      expect(seen).toHaveLength(2)
      expect(seen[1]).toEqual(seen[0])
      expect(result).toEqual(seen[0])
      expect(result.afterStep - result.atStart).toBeGreaterThanOrEqual(25)

      const unseeded = await server.call<{ before: unknown, after: number, wall: number }>('/clockProbe/c2/unseeded')
      expect(unseeded.before).toBe('RestateClockError')
      expect(unseeded.after).toBeGreaterThanOrEqual(unseeded.wall)
    }
    finally {
      await served.close()
    }
  })

  it('refuses an entry over maxEntryBytes with a typed error, journaled, so a replay refuses it without running the step again', async () => {
    const small = await server.call<any>('/probe/s1/oversized', 100)
    expect(small).toEqual({ ok: 100 })
    const big = await server.call<any>('/probe/b1/oversized', 5000)
    expect(big.error).toMatchObject({ name: 'DurablePayloadTooLargeError', maxBytes: 1024 })
    expect(big.error.bytes).toBeGreaterThan(5000)
    expect(attempts.b1).toBe(2)
    expect(ran['b1:big']).toBe(1)
  })

  it('a failed step is journaled with its error class and fields, not retried by Restate', async () => {
    const result = await server.call<any>('/probe/f1/failing')
    expect(attempts.f1).toBe(2)
    expect(ran['f1:failing']).toBe(1)
    expect(result).toEqual({ isProviderError: true, kind: 'rate_limit', status: 429, message: 'rate limited' })
  })

  it('after a kill, onAttemptEnd is called once, the step awaited ends with AgentAbortedError, and every later step throws it without running', async () => {
    const id = await server.send('/probe/k-kill/killed')
    for (let i = 0; i < 200 && !ran['k-kill:long']; i++)
      await new Promise(resolve => setTimeout(resolve, 25))
    const response = await fetch(`${server.adminUrl}/invocations/${id}/kill`, { method: 'PATCH' })
    expect(response.ok).toBe(true)
    for (let i = 0; i < 200 && afterKill.get('k-kill')?.error === undefined && !afterKill.get('k-kill')?.ran; i++)
      await new Promise(resolve => setTimeout(resolve, 25))
    expect(afterKill.get('k-kill')).toEqual({ ran: false, first: 'AgentAbortedError', error: 'AgentAbortedError' })
    expect(ran['k-kill:attempt-end']).toBe(1)
  })

  it('refuses a maxEntryBytes that is not a sane integer', async () => {
    const ctx = {} as restate.ObjectContext
    expect(() => restateRuntime(ctx, { maxEntryBytes: 0 })).toThrow(RangeError)
    expect(() => restateRuntime(ctx, { maxEntryBytes: 1.5 })).toThrow(RangeError)
  })
})
