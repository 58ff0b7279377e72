/**
 * One scripted tool-heavy run against the fake Anthropic server with its
 * prompt-cache simulation, measured request by request: prompt size, bytes
 * read from and written to the cache, prefix rewrites and frontier steps.
 * Shared by `bench/context.ts` (200 turns, figures printed) and the test that
 * asserts the byte-prefix property and the step count on a shorter run.
 *
 * The turns mix what a coding agent does, so every context knob has work:
 * module reads (a few KB each: tail compaction), test runs with tens of KB of
 * output (large-result persistence), screenshots carrying a PNG (downscaling
 * on entry and media ageing), and `read_file` of a real file followed by an
 * `edit` or `write_file` of it, in a temp directory through the built-in file
 * tools (stale-read elision).
 */

import type { AgentBehavior } from '../src'
import type { ToolResultContent } from '../src/core/content'
import type { CacheAccount } from '../test/support/prompt-cache'
import { mkdir, mkdtemp, readdir, rm, writeFile as writeFileOnDisk } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { createAgent, tool } from '../src'
import { createProcessContext } from '../src/contexts'
import { encodePng } from '../src/media/png'
import { anthropic } from '../src/providers/anthropic'
import { edit, readFile, writeFile } from '../src/tools'
import { startFakeAnthropic } from '../test/support/fake-anthropic'
import { cacheUnits, createPromptCache } from '../test/support/prompt-cache'

/** Prices as Anthropic bills input: cache writes (5 minutes) at 1.25x, reads at 0.1x. */
export const WRITE_RATE = 1.25
export const READ_RATE = 0.1

/** Simulated seconds between requests: a headless run, well inside the five-minute TTL. */
const STEP_MS = 4000
const SUMMARY_MARK = 'about to be compacted'
/** Project files the run reads and changes. */
const FILES = 12
/** Edge of the screenshots the tool takes (before any downscaling). */
export const SCREENSHOT_EDGE = 160

/** The frontier steps of each stage that rewrites an earlier part of the request. */
export interface FrontierSteps {
  /** Tool outputs newly sent as the tail-compaction stub (or no longer sent so). */
  tail: number
  /** A new compaction summary at the head of the view. */
  summary: number
  /** Media that was inline in the previous request and is now a marker (or gone into a stub). */
  media: number
  /** Reads newly sent as the stale-read stub. */
  staleRead: number
}

export interface ContextRequest {
  /** Whether this was an auto-compaction summary call. */
  summaryCall: boolean
  /** Bytes of the request's messages, as sent. */
  promptBytes: number
  /** Bytes of tool-result text in the request, as sent, the tail-compaction stubs included. */
  toolOutputBytes: number
  /** The same without the tail-compaction stubs: what `compactThreshold` bounds. */
  keptToolOutputBytes: number
  cache: CacheAccount
  /** Not a unit-by-unit extension of the previous request (breakpoints aside). */
  rewrite: boolean
  /** The stages whose frontier moved at this request (empty: none did). */
  steps: (keyof FrontierSteps)[]
}

export interface ContextRun {
  requests: ContextRequest[]
  /** Bytes read from the cache / bytes sent, over every request. */
  hitRatio: number
  rewrites: number
  /** Requests at which at least one stage's frontier moved. */
  frontierSteps: number
  /** The same, per stage (a request where two stages step counts for both). */
  stepsByStage: FrontierSteps
  /** Input billed, in bytes weighted as billed: uncached + writes × 1.25 + reads × 0.1. */
  billed: number
  /** Uncached + writes × 1.25 only. */
  billedWithoutReads: number
  /** Of each summary call's input, the share read from the cache. */
  summaryHitRatios: number[]
  /** Results written to the persistence directory. */
  persistedFiles: number
  /** Largest image edge seen in any request, in pixels (0 when none was sent). */
  maxSentImageEdge: number
}

/** A behavior, or one built around the run's own directory for persisted results. */
export type ScenarioBehavior = AgentBehavior | ((resultsDir: string) => AgentBehavior)

/** Output of the `n`th module read: a few KB of source-like text that differs per call. */
function moduleOutput(path: string, n: number): string {
  const lines: string[] = []
  for (let i = 0; i < 60 + (n % 5) * 15; i++)
    lines.push(`${path}:${i + 1}: export const value${n}_${i} = compute(${i}, '${path}') // line ${i}`)
  return lines.join('\n')
}

/** Output of the `n`th test run: tens of KB of a verbose reporter's log. */
function testOutput(n: number): string {
  const lines: string[] = []
  for (let i = 0; i < 500 + (n % 3) * 100; i++)
    lines.push(`  ✓ suite ${n} › case ${i}: renders the module without warnings (${(i * 7 + n) % 97} ms)`)
  lines.push(`Tests: ${500 + (n % 3) * 100} passed, 0 failed (run ${n})`)
  return lines.join('\n')
}

/** A real PNG: a gradient with a per-shot pattern, so no two screenshots are the same bytes. */
function screenshot(n: number): string {
  const edge = SCREENSHOT_EDGE
  const data = new Uint8Array(edge * edge * 4)
  for (let y = 0; y < edge; y++) {
    for (let x = 0; x < edge; x++)
      data.set([(x * 255 / edge) | 0, ((x * y + n * 37) & 0xFF), (255 - y + n) & 0xFF, 255], (y * edge + x) * 4)
  }
  return Buffer.from(encodePng({ width: edge, height: edge, data })).toString('base64')
}

function fileName(k: number): string {
  return `src/file-${k}.ts`
}

/** The starting text of project file `k`: a few KB, with a version line the edits bump. */
function fileText(k: number, version: number): string {
  const lines = [`// version ${version}`]
  for (let i = 0; i < 50; i++)
    lines.push(`export function handler${k}_${i}(input: string): string { return input.trim() + '${k}-${i}' }`)
  return `${lines.join('\n')}\n`
}

interface Call { name: string, input: Record<string, unknown> }

/**
 * What the scripted model asks for on turn `n` (1-based), by `n % 10`: a test
 * run, then a read and an edit of one file, a screenshot, a read and a
 * rewrite of another file, and module reads in between.
 */
function scriptedCall(n: number, versions: Map<number, number>): Call {
  const round = Math.floor(n / 10)
  const a = (2 * round) % FILES
  const b = (2 * round + 1) % FILES
  switch (n % 10) {
    case 0: return { name: 'run_tests', input: { suite: `suite-${n}` } }
    case 1: return { name: 'read_file', input: { path: fileName(a) } }
    case 2: {
      const version = versions.get(a) ?? 0
      versions.set(a, version + 1)
      return { name: 'edit', input: { path: fileName(a), old_string: `// version ${version}\n`, new_string: `// version ${version + 1}\n` } }
    }
    case 4: return { name: 'screenshot', input: { page: `page-${n}` } }
    case 6: return { name: 'read_file', input: { path: fileName(b) } }
    case 7: {
      const version = (versions.get(b) ?? 0) + 1
      versions.set(b, version)
      return { name: 'write_file', input: { path: fileName(b), content: fileText(b, version) } }
    }
    default: return { name: 'read_module', input: { path: `src/module-${n}.ts` } }
  }
}

/**
 * Run `turns` tool turns (then a final answer) with `behavior`, against the
 * fake server with a fresh prompt cache and a fresh project directory, and
 * measure every request.
 */
export async function runContextScenario(behavior: ScenarioBehavior, turns: number): Promise<ContextRun> {
  const root = await mkdtemp(join(tmpdir(), 'zidane-context-'))
  const project = join(root, 'project')
  const results = join(root, 'results')
  await mkdir(join(project, 'src'), { recursive: true })
  for (let k = 0; k < FILES; k++)
    await writeFileOnDisk(join(project, fileName(k)), fileText(k, 0))
  const cache = createPromptCache()
  const versions = new Map<number, number>()
  let turn = 0
  const fake = await startFakeAnthropic({
    promptCache: cache,
    fallback: (request) => {
      cache.advance(STEP_MS)
      const last = request.body.messages.at(-1)
      if (JSON.stringify(last).includes(SUMMARY_MARK))
        return { type: 'turn', turn: { text: `Summary at turn ${turn}: worked through ${turn} steps under src/ (reads, edits, test runs, screenshots); continue with the next one.` } }
      turn++
      if (turn > turns)
        return { type: 'turn', turn: { text: 'All done.' } }
      const call = scriptedCall(turn, versions)
      return { type: 'turn', turn: { text: `Step ${turn}.`, toolCalls: [{ id: `toolu_${turn}`, ...call }] } }
    },
  })
  let persistedFiles = 0
  try {
    let calls = 0
    const readModule = tool({
      name: 'read_module',
      description: 'Read one module of the project',
      input: z.object({ path: z.string() }),
      execute: ({ path }) => moduleOutput(path, ++calls),
    })
    const runTests = tool({
      name: 'run_tests',
      description: 'Run one test suite',
      input: z.object({ suite: z.string() }),
      execute: () => testOutput(++calls),
    })
    const takeScreenshot = tool({
      name: 'screenshot',
      description: 'Take a screenshot of a page',
      input: z.object({ page: z.string() }),
      execute: ({ page }): ToolResultContent[] => [{ type: 'text', text: `Screenshot of ${page}.` }, { type: 'image', mediaType: 'image/png', data: screenshot(++calls) }],
    })
    const agent = createAgent({
      provider: anthropic({ apiKey: 'bench', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }),
      execution: createProcessContext({ cwd: project }),
      tools: { read_module: readModule, run_tests: runTests, screenshot: takeScreenshot, read_file: readFile, edit, write_file: writeFile },
      system: 'You work through a project step by step.',
      behavior: { maxTurns: turns + 10, ...(typeof behavior === 'function' ? behavior(results) : behavior) },
    })
    await agent.run({ prompt: 'Work through the project: read, edit, test and check the pages, one step per turn.' })
    await agent.destroy()
    persistedFiles = (await readdir(results).catch(() => [])).filter(name => name.endsWith('.txt')).length
  }
  finally {
    await fake.close()
    await rm(root, { recursive: true, force: true })
  }
  return { ...measureRequests(fake.requests.map(request => request.body), cache.history), persistedFiles }
}

const TAIL_STUB = '[tool output compacted:'
const STALE_STUB = '[Stale read_file result elided:'
const SUMMARY_TEXT = 'Summary of the earlier conversation'

/** Per tool result of a request, by call id: which stage's form it is sent in. */
function resultStates(messages: readonly any[]): Map<string, { tail: boolean, stale: boolean, media: boolean }> {
  const states = new Map<string, { tail: boolean, stale: boolean, media: boolean }>()
  for (const message of messages) {
    if (!Array.isArray(message.content))
      continue
    for (const block of message.content) {
      if (block.type !== 'tool_result')
        continue
      const parts: any[] = typeof block.content === 'string' ? [{ type: 'text', text: block.content }] : block.content ?? []
      const text = parts.filter(part => part.type === 'text').map(part => part.text as string).join('\n')
      states.set(block.tool_use_id, { tail: text.startsWith(TAIL_STUB), stale: text.startsWith(STALE_STUB), media: parts.some(part => part.type === 'image') })
    }
  }
  return states
}

/** Bytes of tool-result text in a request: all of it, and what is not a tail-compaction stub. */
function toolOutputBytes(messages: readonly any[]): { all: number, kept: number } {
  let all = 0
  let kept = 0
  for (const message of messages) {
    if (!Array.isArray(message.content))
      continue
    for (const block of message.content) {
      if (block.type !== 'tool_result')
        continue
      const parts: any[] = typeof block.content === 'string' ? [{ type: 'text', text: block.content }] : block.content ?? []
      for (const part of parts) {
        if (part.type !== 'text')
          continue
        const bytes = Buffer.byteLength(part.text)
        all += bytes
        if (!part.text.startsWith(TAIL_STUB))
          kept += bytes
      }
    }
  }
  return { all, kept }
}

/** Width and height of a base64 PNG, read from its header. */
function pngEdge(data: string): number {
  const header = Buffer.from(data.slice(0, 44), 'base64')
  return Math.max(header.readUInt32BE(16), header.readUInt32BE(20))
}

function maxImageEdge(messages: readonly any[]): number {
  let max = 0
  for (const message of messages) {
    if (!Array.isArray(message.content))
      continue
    for (const block of message.content) {
      const parts = block.type === 'tool_result' && Array.isArray(block.content) ? block.content : [block]
      for (const part of parts) {
        if (part.type === 'image' && part.source?.type === 'base64')
          max = Math.max(max, pngEdge(part.source.data))
      }
    }
  }
  return max
}

/**
 * Reads each request twice, independently: as bytes (is it a unit-by-unit
 * extension of the previous one?) and as stage forms (did a documented
 * frontier move: a result newly stubbed by tail compaction or by stale-read
 * elision, media newly aged off, a new summary in front?). A rewrite no stage
 * accounts for, or a step that rewrote nothing, makes the two counts differ.
 */
export function measureRequests(bodies: readonly any[], accounts: readonly CacheAccount[]): Omit<ContextRun, 'persistedFiles'> {
  const requests: ContextRequest[] = []
  const stepsByStage: FrontierSteps = { tail: 0, summary: 0, media: 0, staleRead: 0 }
  let previousUnits: string[] = []
  let previousStates = new Map<string, { tail: boolean, stale: boolean, media: boolean }>()
  let previousSummary: string | undefined
  let maxSentImageEdge = 0
  for (const [index, body] of bodies.entries()) {
    const units = cacheUnits(body).map(unit => unit.text)
    const messages = JSON.stringify(body.messages)
    const summaryCall = JSON.stringify(body.messages.at(-1)).includes(SUMMARY_MARK)
    const first = JSON.stringify(body.messages[0])
    const summary = first.includes(SUMMARY_TEXT) ? first : undefined
    const states = resultStates(body.messages)
    const rewrite = index > 0 && (units.length < previousUnits.length || previousUnits.some((unit, i) => units[i] !== unit))
    const steps: (keyof FrontierSteps)[] = []
    if (index > 0) {
      if (summary !== previousSummary)
        steps.push('summary')
      let tail = false
      let stale = false
      let media = false
      for (const [id, state] of states) {
        const before = previousStates.get(id)
        if (!before)
          continue
        tail ||= before.tail !== state.tail
        // A stale stub that tail compaction later stubs is the tail's step, not a new stale read.
        stale ||= before.stale !== state.stale && before.tail === state.tail
        media ||= before.media !== state.media
      }
      if (tail)
        steps.push('tail')
      if (media)
        steps.push('media')
      if (stale)
        steps.push('staleRead')
      for (const step of steps) stepsByStage[step]++
    }
    maxSentImageEdge = Math.max(maxSentImageEdge, maxImageEdge(body.messages))
    const output = toolOutputBytes(body.messages)
    requests.push({ summaryCall, promptBytes: Buffer.byteLength(messages), toolOutputBytes: output.all, keptToolOutputBytes: output.kept, cache: accounts[index], rewrite, steps })
    previousUnits = units
    previousStates = states
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
    frontierSteps: requests.filter(request => request.steps.length > 0).length,
    stepsByStage,
    billed,
    billedWithoutReads,
    summaryHitRatios: requests.filter(request => request.summaryCall).map(request => request.cache.readBytes / request.cache.totalBytes),
    maxSentImageEdge,
  }
}
