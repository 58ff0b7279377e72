/**
 * Child process for the determinism test: one run of a fixed script on
 * `testEffects`, recorded in a file session store. It prints the run's stats
 * and the retry delays it waited, as one JSON line.
 * Arguments: <store dir> <session id>.
 */
import { createAgent } from '../../src'
import { createSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { scriptedProvider, testEffects } from '../../src/testing'

const [dir, sessionId] = process.argv.slice(2)
const effects = testEffects({ start: 1_764_633_600_000, step: 7, seed: 42 })
// The session's own `createdAt` on the same effects, so nothing recorded reads the real clock.
const session = await createSession({ id: sessionId, store: createFileStore({ dir }), clock: { now: effects.now, randomUUID: effects.id } })

const look = {
  spec: { name: 'look', description: 'Look at a thing', inputSchema: { type: 'object', properties: { thing: { type: 'string' } } } },
  isConcurrencySafe: true,
  execute: ({ thing }: { thing: string }) => `saw ${thing}`,
}

const provider = scriptedProvider([
  // A retryable failure: the retry waits a jittered delay drawn from the effects.
  { error: { kind: 'server', message: 'overloaded for a moment', retryable: true } },
  { text: 'Looking.', toolCalls: [{ name: 'look', input: { thing: 'left' } }, { name: 'look', input: { thing: 'right' } }] },
  // A turn that fills the window: the compaction after it makes a side call, answered next.
  { toolCalls: [{ name: 'look', input: { thing: 'up' } }], usage: { input: 950, output: 8 } },
  { text: 'SUMMARY: looked left, right and up.' },
  { thinking: 'All seen.', text: ['Left, right ', 'and up: done.'], usage: { input: 40, output: 12 } },
])
const agent = createAgent({
  provider,
  tools: { look },
  session,
  effects,
  behavior: { retry: { maxAttempts: 3, initialDelayMs: 20_000, maxDelayMs: 60_000 }, autoCompact: { contextWindow: 1000, keepTurns: 2, restore: false } },
})
const retryDelays: number[] = []
agent.hooks.hook('stream:retry', (ctx) => {
  retryDelays.push(ctx.delayMs)
})

const stats = await agent.run({ prompt: 'look both ways' })
process.stdout.write(`${JSON.stringify({ stats, retryDelays })}\n`)
