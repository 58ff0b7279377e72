/**
 * Worker process of the Restate crash test: serves `restateAgent` on the
 * port it is given, over a file session store, with the crash script's
 * tools. Its tools append each side effect to a log file (so the test counts
 * them across worker lives), its hooks log streamed text (so the test sees
 * streaming stay live), and it kills itself with SIGKILL where the kill plan
 * says: at a journal boundary (a step's entry acknowledged by Restate, seen
 * through a watched `ctx.run`), or inside a tool of a parallel batch. A plan
 * entry fires once across lives (fired ones are logged to a file).
 *
 * Environment: PORT, STORE_DIR, MODEL_URL, LOG_FILE, KILL_PLAN (JSON),
 * TIME_FILE (record step times) or TIME_REPLAY_FILE (read them back).
 */
import type { Interceptor, ObjectContext, ObjectSharedContext } from '@restatedev/restate-sdk'
import type { ToolDef } from '../../src/tools/types'
import { AsyncLocalStorage } from 'node:async_hooks'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import * as restate from '@restatedev/restate-sdk'
import { restateAgent } from '../../src/durable'
import { anthropic } from '../../src/providers/anthropic'
import { createFileStore } from '../../src/session/stores'
import { CRASH_CONTEXT_WINDOW, nextMarker } from './restate-crash-script'
import { serveEndpoint } from './restate-endpoint'

/**
 * Where to die. `after`: at the journal boundary of the `nth` step matching
 * it (counted in this life, replayed steps included), when that step ran in
 * this life. `every`: at the boundary of every step that ran in this life, so
 * each life makes one step of progress. Both wait for a boundary where no
 * other step is pending. `batch`: inside the slow audit of a parallel batch,
 * while the batch's fast call is already journaled.
 */
export type KillPoint = { after: string, nth?: number } | { every: true } | { batch: true }

const env = process.env as Record<string, string>
const plan = JSON.parse(env.KILL_PLAN ?? '[]') as KillPoint[]
const log = (line: Record<string, unknown>) => appendFileSync(env.LOG_FILE, `${JSON.stringify({ pid: process.pid, ...line })}\n`)
const logged = () => existsSync(env.LOG_FILE) ? readFileSync(env.LOG_FILE, 'utf8').split('\n').filter(Boolean).map(line => JSON.parse(line) as Record<string, unknown>) : []
const fired = new Set(logged().filter(line => line.kind === 'kill').map(line => String(line.point)))
function die(point: string): never {
  log({ kind: 'kill', point })
  process.kill(process.pid, 'SIGKILL')
  throw new Error('unreachable')
}

// Step times: an uninterrupted run records what each step's closure read;
// the crashed run's workers read the same values back, so the two sessions
// can be compared byte for byte.
const stepName = new AsyncLocalStorage<string>()
const recorded = env.TIME_REPLAY_FILE ? JSON.parse(readFileSync(env.TIME_REPLAY_FILE, 'utf8')) as Record<string, number[]> : undefined
const reads = new Map<string, number>()
const realNow = Date.now.bind(Date)
Date.now = () => {
  const name = stepName.getStore()
  if (name === undefined)
    return realNow()
  const index = reads.get(name) ?? 0
  reads.set(name, index + 1)
  const value = recorded?.[name]?.[index] ?? realNow()
  if (env.TIME_FILE)
    log({ kind: 'time', name, index, value })
  return value
}

// Steps whose closure ran in this life (the interceptor sees only those; a replayed step's closure does not run).
const live = new Set<string>()
const interceptor: Interceptor = {
  run: async (name, next) => {
    live.add(name)
    await stepName.run(name, next)
  },
}

// Each step's promise resolves once Restate has acknowledged its entry: that is the journal boundary. A kill
// there, with no other step of the run pending, leaves nothing done that the journal does not hold.
let pending = 0
const matches = new Map<number, number>()
function atBoundary(name: string): void {
  for (const [i, point] of plan.entries()) {
    if ('after' in point && new RegExp(point.after).test(name))
      matches.set(i, (matches.get(i) ?? 0) + 1)
  }
  if (!live.has(name) || pending > 0)
    return
  for (const [i, point] of plan.entries()) {
    if ('every' in point)
      die(`every:${name}`)
    if ('after' in point && !fired.has(String(i)) && matches.get(i) === (point.nth ?? 1))
      die(String(i))
  }
}

/** `ctx` with each `ctx.run` watched for its boundary. */
function watched<C extends ObjectContext>(ctx: C): C {
  return new Proxy(ctx, {
    get(target, key) {
      // Every method runs on the real context: Restate ties each promise to the context that made it.
      if (key !== 'run') {
        const value = Reflect.get(target, key, target) as unknown
        return typeof value === 'function' ? value.bind(target) : value
      }
      return (name: string, ...rest: unknown[]) => {
        const entry = (target.run as (...args: unknown[]) => Promise<unknown>)(name, ...rest)
        pending++
        entry.then(() => {
          pending--
          atBoundary(name)
        }, () => {
          pending--
        })
        return entry
      }
    },
  })
}

function sideEffectTool(name: 'charge' | 'audit'): ToolDef {
  return {
    spec: { name, description: `${name} an order`, inputSchema: { type: 'object', properties: { order: { type: 'string' }, cents: { type: 'number' }, slowMs: { type: 'number' }, turn: { type: 'number' } }, required: ['order', 'turn'] } },
    isConcurrencySafe: true,
    execute: async (input: { order: string, turn: number, slowMs?: number }, ctx) => {
      const start = realNow()
      log({ kind: 'start', tool: name, callId: ctx.callId, at: start })
      if (input.slowMs)
        await new Promise(resolve => setTimeout(resolve, input.slowMs))
      const batchPoint = plan.findIndex(point => 'batch' in point)
      if (name === 'audit' && batchPoint >= 0 && !fired.has(String(batchPoint)) && (input.slowMs ?? 0) >= 100)
        die(String(batchPoint))
      log({ kind: 'effect', tool: name, callId: ctx.callId, order: input.order, at: realNow(), started: start })
      return `${name} ${input.order} done; ${nextMarker(input.turn + 1)}`
    },
  } as ToolDef
}

const lookup = {
  spec: { name: 'lookup', description: 'Look an order up', inputSchema: { type: 'object', properties: { order: { type: 'string' }, turn: { type: 'number' } }, required: ['order', 'turn'] } },
  isConcurrencySafe: true,
  execute: async (input: { order: string, turn: number }) => `order ${input.order} is open; ${nextMarker(input.turn + 1)}`,
} as ToolDef

const agents = restateAgent({
  store: createFileStore({ dir: env.STORE_DIR }),
  agent: () => ({
    provider: anthropic({ baseURL: env.MODEL_URL, apiKey: 'test-key', defaultModel: 'claude-test' }),
    tools: { lookup, charge: sideEffectTool('charge'), audit: sideEffectTool('audit') },
    system: 'You process orders.',
    behavior: { autoCompact: { contextWindow: CRASH_CONTEXT_WINDOW, threshold: 0.8, keepTurns: 2, restore: false }, maxTurns: 40 },
    hooks: {
      'stream:text': ({ delta }: { delta: string }) => log({ kind: 'delta', delta }),
    },
  }),
})

// The same object, its handlers given a watched context.
const handlers = (agents as unknown as { object: unknown }).object as Record<'run' | 'resume' | 'suspend', (ctx: any, input: unknown) => Promise<unknown>>
const object = restate.object({
  name: agents.name,
  handlers: {
    run: restate.handlers.object.exclusive((ctx: ObjectContext, input: unknown) => handlers.run(watched(ctx), input)),
    resume: restate.handlers.object.exclusive((ctx: ObjectContext, input: unknown) => handlers.resume(watched(ctx), input)),
    suspend: restate.handlers.object.shared((ctx: ObjectSharedContext, reason: unknown) => handlers.suspend(ctx, reason)),
  },
})

const endpoint = await serveEndpoint([object], { port: Number(env.PORT), defaultServiceOptions: { hooks: [() => ({ interceptor })] } })
process.stdout.write(`ready ${endpoint.port}\n`)
