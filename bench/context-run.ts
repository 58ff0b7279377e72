/**
 * One scripted tool-heavy run against the fake Anthropic server with its
 * prompt-cache simulation, measured request by request: prompt size, bytes
 * read from and written to the cache, prefix rewrites and frontier steps.
 * Shared by `bench/context.ts` (200 turns, figures printed) and the test that
 * asserts the byte-prefix property and the step count on a shorter run.
 */

import type { AgentBehavior } from '../src'
import type { CacheAccount } from '../test/support/prompt-cache'
import { z } from 'zod'
import { createAgent, tool } from '../src'
import { anthropic } from '../src/providers/anthropic'
import { startFakeAnthropic } from '../test/support/fake-anthropic'
import { cacheUnits, createPromptCache } from '../test/support/prompt-cache'

/** Prices as Anthropic bills input: cache writes (5 minutes) at 1.25x, reads at 0.1x. */
export const WRITE_RATE = 1.25
export const READ_RATE = 0.1

/** Simulated seconds between requests: a headless run, well inside the five-minute TTL. */
const STEP_MS = 4000
const SUMMARY_MARK = 'about to be compacted'

export interface ContextRequest {
  /** Whether this was an auto-compaction summary call. */
  summaryCall: boolean
  /** Bytes of the request's messages, as sent. */
  promptBytes: number
  cache: CacheAccount
  /** Not a unit-by-unit extension of the previous request (breakpoints aside). */
  rewrite: boolean
  /** A documented frontier step: more tool outputs stubbed than before, or a new summary in front. */
  frontierStep: boolean
}

export interface ContextRun {
  requests: ContextRequest[]
  /** Bytes read from the cache / bytes sent, over every request. */
  hitRatio: number
  rewrites: number
  frontierSteps: number
  /** Input billed, in bytes weighted as billed: uncached + writes × 1.25 + reads × 0.1. */
  billed: number
  /** Uncached + writes × 1.25 only. */
  billedWithoutReads: number
  /** Of each summary call's input, the share read from the cache. */
  summaryHitRatios: number[]
}

/** Output of the `n`th tool call: a few KB of source-like text that differs per call. */
function toolOutput(path: string, n: number): string {
  const lines: string[] = []
  for (let i = 0; i < 60 + (n % 5) * 15; i++)
    lines.push(`${path}:${i + 1}: export const value${n}_${i} = compute(${i}, '${path}') // line ${i}`)
  return lines.join('\n')
}

/**
 * Run `turns` tool turns (then a final answer) with `behavior`, against the
 * fake server with a fresh prompt cache, and measure every request.
 */
export async function runContextScenario(behavior: AgentBehavior, turns: number): Promise<ContextRun> {
  const cache = createPromptCache()
  let turn = 0
  const fake = await startFakeAnthropic({
    promptCache: cache,
    fallback: (request) => {
      cache.advance(STEP_MS)
      const last = request.body.messages.at(-1)
      if (JSON.stringify(last).includes(SUMMARY_MARK))
        return { type: 'turn', turn: { text: `Summary at turn ${turn}: read ${turn} modules under src/, found nothing to change yet; continue with the next module.` } }
      turn++
      if (turn > turns)
        return { type: 'turn', turn: { text: 'All modules read.' } }
      return { type: 'turn', turn: { text: `Reading module ${turn}.`, toolCalls: [{ id: `toolu_${turn}`, name: 'read_module', input: { path: `src/module-${turn}.ts` } }] } }
    },
  })
  try {
    let calls = 0
    const readModule = tool({
      name: 'read_module',
      description: 'Read one module of the project',
      input: z.object({ path: z.string() }),
      execute: ({ path }) => toolOutput(path, ++calls),
    })
    const agent = createAgent({
      provider: anthropic({ apiKey: 'bench', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }),
      tools: { read_module: readModule },
      system: 'You read a project module by module.',
      behavior: { maxTurns: turns + 10, ...behavior },
    })
    await agent.run({ prompt: 'Read every module of the project, one per turn.' })
    await agent.destroy()
  }
  finally {
    await fake.close()
  }
  return measureRequests(fake.requests.map(request => request.body), cache.history)
}

const STUB = /tool output compacted/g

function measureRequests(bodies: readonly any[], accounts: readonly CacheAccount[]): ContextRun {
  const requests: ContextRequest[] = []
  let previousUnits: string[] = []
  let previousStubs = 0
  let previousSummary: string | undefined
  for (const [index, body] of bodies.entries()) {
    const units = cacheUnits(body).map(unit => unit.text)
    const messages = JSON.stringify(body.messages)
    const summaryCall = JSON.stringify(body.messages.at(-1)).includes(SUMMARY_MARK)
    const stubs = (messages.match(STUB) ?? []).length
    const first = JSON.stringify(body.messages[0])
    const summary = first.includes('Summary of the earlier conversation') ? first : undefined
    const rewrite = index > 0 && (units.length < previousUnits.length || previousUnits.some((unit, i) => units[i] !== unit))
    const frontierStep = index > 0 && (summary !== previousSummary || (summary === previousSummary && stubs > previousStubs))
    requests.push({ summaryCall, promptBytes: Buffer.byteLength(messages), cache: accounts[index], rewrite, frontierStep })
    previousUnits = units
    previousStubs = stubs
    previousSummary = summary
  }
  let sent = 0
  let read = 0
  let billed = 0
  let billedWithoutReads = 0
  for (const { cache } of requests) {
    sent += cache.totalBytes
    read += cache.readBytes
    billedWithoutReads += cache.uncachedBytes + cache.writtenBytes * WRITE_RATE
    billed += cache.uncachedBytes + cache.writtenBytes * WRITE_RATE + cache.readBytes * READ_RATE
  }
  return {
    requests,
    hitRatio: sent === 0 ? 0 : read / sent,
    rewrites: requests.filter(request => request.rewrite).length,
    frontierSteps: requests.filter(request => request.frontierStep).length,
    billed,
    billedWithoutReads,
    summaryHitRatios: requests.filter(request => request.summaryCall).map(request => request.cache.readBytes / request.cache.totalBytes),
  }
}
