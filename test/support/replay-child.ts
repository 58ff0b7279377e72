/**
 * Child process for the kill-and-replay test: one worker of a replay-mode
 * agent on a file store, with its journal in a file (one JSON line per
 * entry, written synchronously, so a SIGKILL keeps every entry written
 * before it). Arguments: <store dir> <session id> <model server url>
 * <journal file> <side-effects file> <kill before new step n, or -1>.
 * Prints the run's stop reason and text as one JSON line.
 */
import type { DurableRuntime } from '../../src/durable'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'

const [dir, sessionId, url, journalFile, effectsFile, killAt] = process.argv.slice(2)

type Line = { step: string, value: string } | { time: number } | { id: string }
const lines: Line[] = existsSync(journalFile) ? readFileSync(journalFile, 'utf8').split('\n').filter(Boolean).map(line => JSON.parse(line) as Line) : []
const steps = new Map<string, string>()
const times: number[] = []
const ids: string[] = []
for (const line of lines) {
  if ('step' in line)
    steps.set(line.step, line.value)
  else if ('time' in line)
    times.push(line.time)
  else ids.push(line.id)
}
const write = (line: Line) => appendFileSync(journalFile, `${JSON.stringify(line)}\n`)
let timeReads = 0
let idReads = 0
let started = 0

const runtime: DurableRuntime = {
  mode: 'replay',
  async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const stored = steps.get(name)
    if (stored !== undefined)
      return JSON.parse(stored) as T
    if (started++ === Number(killAt))
      process.kill(process.pid, 'SIGKILL')
    const value = await fn()
    write({ step: name, value: JSON.stringify(value) })
    return value
  },
  now() {
    const index = timeReads++
    if (index < times.length)
      return times[index]
    const time = 1_700_000_000_000 + index * 5
    write({ time })
    return time
  },
  randomUUID() {
    const index = idReads++
    if (index < ids.length)
      return ids[index]
    const id = `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`
    write({ id })
    return id
  },
}

const charge = tool({
  name: 'charge',
  description: 'Charge a customer',
  input: z.object({ who: z.string() }),
  isConcurrencySafe: true,
  execute: async ({ who }, ctx) => {
    appendFileSync(effectsFile, `${ctx.callId}\n`)
    return `charged ${who}`
  },
})

const session = await loadSession(sessionId, { store: createFileStore({ dir }) })
const agent = createAgent({ provider: anthropic({ baseURL: url, apiKey: 'fake' }), tools: { charge }, session, durable: runtime })
const stats = await agent.run({ prompt: 'Charge everyone.' })
process.stdout.write(`${JSON.stringify({ stopReason: stats.stopReason, text: stats.text })}\n`)
