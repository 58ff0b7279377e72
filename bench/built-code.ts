/**
 * Which code a benchmark measures. Hosts run zidane's built JavaScript (the
 * package's `dist/`), not its TypeScript sources, and they run their own
 * loop compiled the same way. `npm run bench` runs under `tsx`, whose
 * transform keeps every function's name: each closure made at run time then
 * costs a `defineProperty` call (about half a microsecond, more than the
 * closure itself), a cost no installed copy of zidane pays and no host's own
 * compiled code pays either. So the benchmarks that compare zidane with a
 * hand-written loop load both sides compiled without kept names: zidane from
 * its tsup build, the floor loops from an esbuild build of their files.
 * `BENCH_CODE=source` measures the sources through `tsx` instead, to see
 * what kept names cost or to measure a change before building.
 */

import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { createAgent } from '../src'
import { anthropic } from '../src/providers/anthropic'
import { openai } from '../src/providers/openai'
import { createFileStore, createSession } from '../src/session'
import { runFloorLoop } from './floor-loop'
import { runOpenAIFloorLoop } from './floor-loop-openai'
import { runResponsesFloorLoop } from './floor-loop-responses'
import { startFloorRun } from './floor-telemetry'

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))
/** Where the compiled floor loops are written (ignored by git). */
const FLOORS_DIR = join(REPO_ROOT, 'bench', '.floors-dist')

/** What the loop benchmarks take from zidane: the factories a host calls. */
export interface ZidaneParts {
  createAgent: typeof createAgent
  anthropic: typeof anthropic
  openai: typeof openai
  createFileStore: typeof createFileStore
  createSession: typeof createSession
}

/** The hand-written loops, one per wire format. */
export interface FloorParts {
  runFloorLoop: typeof runFloorLoop
  runOpenAIFloorLoop: typeof runOpenAIFloorLoop
  runResponsesFloorLoop: typeof runResponsesFloorLoop
  /** OpenTelemetry by hand, for a floor run with telemetry. */
  startFloorRun: typeof startFloorRun
}

/** Both sides of a loop comparison, and what to print about where they came from. */
export interface LoopCode {
  zidane: ZidaneParts
  floors: FloorParts
  note: string
}

/** The sources as this process loaded them (through `tsx` under `npm run bench`; the smoke tests use this). */
export const SOURCE_CODE: LoopCode = {
  zidane: { createAgent, anthropic, openai, createFileStore, createSession },
  floors: { runFloorLoop, runOpenAIFloorLoop, runResponsesFloorLoop, startFloorRun },
  note: 'zidane and the floors from their TypeScript sources through tsx (function names kept)',
}

/** Newest modification time under `dir` (recursively), in ms. */
function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/**
 * The directory holding zidane's built entries: `dist/` when it is newer
 * than every source file, else a JavaScript-only build of the same tsup
 * config in `bench/.cold-dist/` (a few seconds; kept until a source changes),
 * its chunks regrouped as the published build's are (the config's
 * `onSuccess`, `scripts/rechunk-dist.ts`).
 */
export function builtZidane(): { dir: string, note: string } {
  const dist = join(REPO_ROOT, 'dist')
  const index = join(dist, 'index.js')
  const sourcesChanged = newestMtime(join(REPO_ROOT, 'src'))
  if (existsSync(index) && statSync(index).mtimeMs >= sourcesChanged)
    return { dir: dist, note: 'dist/ (up to date)' }
  const outDir = join(REPO_ROOT, 'bench', '.cold-dist')
  const cached = join(outDir, 'index.js')
  if (existsSync(cached) && statSync(cached).mtimeMs >= sourcesChanged)
    return { dir: outDir, note: 'bench/.cold-dist/ (tsup without declarations, up to date)' }
  execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'tsup', 'dist', 'cli-default.js'), '--no-dts', '--out-dir', outDir, '--silent'], { cwd: REPO_ROOT, stdio: 'inherit' })
  return { dir: outDir, note: `bench/.cold-dist/ (dist/ was ${existsSync(index) ? 'older than src/' : 'missing'}; built now with tsup, without declarations)` }
}

/**
 * Both sides compiled as hosts run them: zidane's build (`builtZidane`) and
 * the floor loops compiled by esbuild with the target zidane's build uses
 * and no kept names. Each module is imported once per process.
 */
export async function builtLoopCode(): Promise<LoopCode> {
  const built = builtZidane()
  const entry = (name: string): string => pathToFileURL(join(built.dir, `${name}.js`)).href
  const [root, anthropicEntry, openaiEntry, sessionEntry] = await Promise.all([
    import(entry('index')) as Promise<typeof import('../src')>,
    import(entry('providers/anthropic')) as Promise<typeof import('../src/providers/anthropic')>,
    import(entry('providers/openai')) as Promise<typeof import('../src/providers/openai')>,
    import(entry('session')) as Promise<typeof import('../src/session')>,
  ])
  await build({
    entryPoints: ['floor-loop.ts', 'floor-loop-openai.ts', 'floor-loop-responses.ts', 'floor-telemetry.ts'].map(file => join(REPO_ROOT, 'bench', file)),
    outdir: FLOORS_DIR,
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  })
  const floorEntry = (name: string): string => pathToFileURL(join(FLOORS_DIR, `${name}.mjs`)).href
  const [floor, openaiFloor, responsesFloor, floorTelemetry] = await Promise.all([
    import(floorEntry('floor-loop')) as Promise<typeof import('./floor-loop')>,
    import(floorEntry('floor-loop-openai')) as Promise<typeof import('./floor-loop-openai')>,
    import(floorEntry('floor-loop-responses')) as Promise<typeof import('./floor-loop-responses')>,
    import(floorEntry('floor-telemetry')) as Promise<typeof import('./floor-telemetry')>,
  ])
  return {
    zidane: {
      createAgent: root.createAgent,
      anthropic: anthropicEntry.anthropic,
      openai: openaiEntry.openai,
      createFileStore: sessionEntry.createFileStore,
      createSession: sessionEntry.createSession,
    },
    floors: { runFloorLoop: floor.runFloorLoop, runOpenAIFloorLoop: openaiFloor.runOpenAIFloorLoop, runResponsesFloorLoop: responsesFloor.runResponsesFloorLoop, startFloorRun: floorTelemetry.startFloorRun },
    note: `zidane from ${built.note}; the floors compiled by esbuild (node20, no kept names)`,
  }
}

/** The code `BENCH_CODE` names: `built` (the default) or `source`. */
export async function benchLoopCode(): Promise<LoopCode> {
  const wanted = process.env.BENCH_CODE ?? 'built'
  if (wanted === 'source')
    return SOURCE_CODE
  if (wanted !== 'built')
    throw new Error(`BENCH_CODE must be "built" or "source", not ${JSON.stringify(wanted)}`)
  return builtLoopCode()
}
