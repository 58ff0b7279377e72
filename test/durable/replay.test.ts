import type { FakeModelServer, FakeModelStep } from '../../src/testing'
import type { MemoryJournal, ReplayRuntime } from './memory-journal'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { createMemoryStore, createSession, loadSession } from '../../src/session'
import { startFakeModelServer } from '../../src/testing'
import { memoryJournal, replayRuntime } from './memory-journal'

/**
 * A scripted run on a replay-mode runtime is "killed" at every journal
 * boundary in turn (the runtime stops handing results on, like a dead
 * process), then run again by a new agent on a new session handle and a new
 * runtime over the same journal: a restarted worker.
 */

const SESSION = 'durable-session'
const FIXED_CLOCK = { now: () => 1_700_000_000_000, randomUUID: () => 'unused' }

/** Five model turns: a parallel batch of two counted calls, a lone counted call with a state write, another batch, then the answer. */
function script(): FakeModelStep[] {
  return [
    { text: 'Charging both.', toolCalls: [{ id: 'c1', name: 'charge', input: { who: 'ann', cents: 100 } }, { id: 'c2', name: 'charge', input: { who: 'bob', cents: 200 } }] },
    { toolCalls: [{ id: 'n1', name: 'note', input: { text: 'charged two' } }] },
    { toolCalls: [{ id: 'c3', name: 'charge', input: { who: 'cy', cents: 300 } }, { id: 'c4', name: 'charge', input: { who: 'di', cents: 400 } }] },
    { toolCalls: [{ id: 'n2', name: 'note', input: { text: 'charged four' } }] },
    { text: 'All four are charged.' },
  ]
}

/** What the world saw: each side effect, by call id. */
class World {
  readonly charges: string[] = []
  readonly notes: string[] = []
}

function tools(world: World) {
  return {
    charge: tool({
      name: 'charge',
      description: 'Charge a customer',
      input: z.object({ who: z.string(), cents: z.number() }),
      isConcurrencySafe: true,
      execute: async ({ who, cents }, ctx) => {
        world.charges.push(ctx.callId)
        await new Promise(resolve => setTimeout(resolve, cents / 100))
        return `charged ${who} ${cents}`
      },
    }),
    note: tool({
      name: 'note',
      description: 'Keep a note',
      input: z.object({ text: z.string() }),
      execute: async ({ text }, ctx) => {
        world.notes.push(ctx.callId)
        const notes = ctx.state.get<string[]>('notes') ?? []
        ctx.state.set('notes', [...notes, text])
        return `noted (${notes.length + 1})`
      },
    }),
  }
}

let servers: FakeModelServer[] = []
afterEach(async () => {
  await Promise.all(servers.map(server => server.close()))
  servers = []
})

async function worker(server: FakeModelServer, store: ReturnType<typeof createMemoryStore>, runtime: ReplayRuntime, world: World) {
  const session = await loadSession(SESSION, { store })
  const agent = createAgent({ provider: anthropic({ baseURL: server.url, apiKey: 'fake' }), tools: tools(world), session, durable: runtime })
  return { agent, session }
}

async function recorded(store: ReturnType<typeof createMemoryStore>) {
  const session = await loadSession(SESSION, { store })
  return JSON.stringify({ turns: session.turns, runs: session.runs })
}

/** One uninterrupted run; then, for `crashAfter`, a run killed after that many steps and its replay. */
async function scenario(crashAfter?: number) {
  const server = await startFakeModelServer({ script: script() })
  servers.push(server)
  const store = createMemoryStore()
  await createSession({ id: SESSION, store, clock: FIXED_CLOCK })
  const journal: MemoryJournal = memoryJournal()
  const world = new World()
  const first = replayRuntime(journal, crashAfter === undefined ? {} : { crashAfter })
  const { agent } = await worker(server, store, first, world)
  const outcome = await Promise.race([agent.run({ prompt: 'Charge everyone, keep notes.' }), first.crashed.then(() => 'crashed' as const)])
  if (outcome !== 'crashed')
    return { server, store, world, journal, stats: outcome, first, crashed: false }
  // A new worker: a new session handle, agent and runtime over the same journal.
  const second = replayRuntime(journal)
  const restarted = await worker(server, store, second, world)
  const stats = await restarted.agent.run({ prompt: 'Charge everyone, keep notes.' })
  return { server, store, world, journal, stats, first, second, crashed: true, toolState: restarted.agent.toolState }
}

describe('a replay-mode run killed at each journal boundary', () => {
  it('completes on a restarted worker: no tool runs twice, no journaled turn is asked again, the session is byte-identical', async () => {
    const baseline = await scenario()
    expect(baseline.stats.stopReason).toBe('completed')
    expect(baseline.stats.text).toBe('All four are charged.')
    const expected = await recorded(baseline.store)
    const steps = baseline.journal.order.length
    // One entry per model turn, per tool call, and the run's starting view of the session.
    expect(baseline.journal.order.filter(name => name.startsWith('model:'))).toHaveLength(5)
    expect(baseline.journal.order.filter(name => name.startsWith('tool:'))).toHaveLength(6)
    expect(steps).toBe(12)

    for (let crashAfter = 0; crashAfter < steps; crashAfter++) {
      const run = await scenario(crashAfter)
      expect(run.crashed, `crash after ${crashAfter}`).toBe(true)
      expect(run.stats.stopReason).toBe('completed')
      // Every side effect once.
      expect([...run.world.charges].sort(), `crash after ${crashAfter}`).toEqual(['c1', 'c2', 'c3', 'c4'])
      expect(run.world.notes).toEqual(['n1', 'n2'])
      // The model was asked once per turn, across both workers.
      expect(run.server.requests, `crash after ${crashAfter}`).toHaveLength(5)
      // What the dead worker journaled was replayed, not run again.
      expect(run.second!.replayed).toEqual(run.first.ran)
      expect(await recorded(run.store), `crash after ${crashAfter}`).toBe(expected)
      // The state writes travelled with their calls' records.
      expect(run.toolState!.get('notes')).toEqual(['charged two', 'charged four'])
    }
  }, 120_000)

  it('the journal holds results, never requests: its size grows with new content only', async () => {
    const baseline = await scenario()
    for (const name of baseline.journal.order.filter(step => step.startsWith('model:'))) {
      const entry = baseline.journal.steps.get(name)!
      expect(entry).not.toContain('Charge everyone')
      expect(entry).not.toContain('"system"')
    }
  })
})
