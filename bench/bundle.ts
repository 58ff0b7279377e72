/**
 * bundle: how much code a host ships for the smallest useful program, next to
 * the same program on the Vercel AI SDK, bundled by esbuild in the same run.
 *
 * Two entries, each a complete one-prompt program:
 *  - zidane: `createAgent({ provider: anthropic({ apiKey }) })` + `agent.run()`,
 *    from `zidane` and `zidane/providers/anthropic` (the sources, which is
 *    what the published chunks are made of);
 *  - AI SDK: `generateText({ model: anthropic(…) })` from `ai` and `@ai-sdk/anthropic`.
 *
 * Each is bundled with `bundle: true, minify: true, platform: 'node',
 * format: 'esm'`, twice: with code splitting (a lazy `import()` becomes its
 * own chunk, so the figure that counts is the *initial* code, the entry plus
 * every chunk it imports statically; lazy chunks are listed apart, since
 * they are fetched only when a program takes that path) and without (one file,
 * where esbuild inlines every lazy `import()`). The metafile tells which
 * package each byte came from; the MCP SDK must not be in the initial code.
 */

import type { Metafile } from 'esbuild'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { printTable } from './measure'

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The two programs; both read the key and base URL from the environment, so the bundles can run against a fake server. */
export const BUNDLE_ENTRIES = {
  'zidane': [
    `import { createAgent } from 'zidane'`,
    `import { anthropic } from 'zidane/providers/anthropic'`,
    `const agent = createAgent({ provider: anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL: process.env.ANTHROPIC_BASE_URL }) })`,
    `const stats = await agent.run({ prompt: 'Say hello.' })`,
    `console.log(JSON.stringify({ turns: stats.turns }))`,
  ].join('\n'),
  'AI SDK': [
    `import { generateText } from 'ai'`,
    `import { createAnthropic } from '@ai-sdk/anthropic'`,
    `const anthropic = createAnthropic({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL: process.env.ANTHROPIC_BASE_URL })`,
    `const result = await generateText({ model: anthropic('claude-sonnet-4-5'), prompt: 'Say hello.' })`,
    `console.log(JSON.stringify({ text: result.text }))`,
  ].join('\n'),
} as const

/** Which program. */
export type BundleEntry = keyof typeof BUNDLE_ENTRIES

/** One bundling of one program. */
export interface BundleResult {
  entry: BundleEntry
  splitting: boolean
  /** Minified bytes of the entry chunk and every chunk it imports statically (the whole file without splitting). */
  initialBytes: number
  /** The same, gzipped chunk by chunk. */
  initialGzipBytes: number
  /** Minified bytes a one-prompt run without MCP servers loads: the initial chunks plus the lazy ones it reaches (the SDK client, the model data). */
  runBytes: number
  /** The same, gzipped chunk by chunk. */
  runGzipBytes: number
  /** Minified bytes of the chunks only a lazy `import()` reaches (0 without splitting). */
  lazyBytes: number
  /** Input files (repo-relative) whose code is in the initial chunks. */
  initialInputs: string[]
  /** Bytes in the initial chunks per package (`src` for zidane's own code), largest first. */
  initialByPackage: [string, number][]
  /** Bytes per package in the lazy chunks a run without MCP servers loads, largest first. */
  lazyRunByPackage: [string, number][]
  /** Bytes of MCP SDK code in the initial chunks: 0 is the target. */
  initialMcpBytes: number
  /** The output files by path, for a caller that runs the bundle. */
  outputs: { path: string, contents: Uint8Array }[]
}

const MCP_SDK = '@modelcontextprotocol/sdk'
/** Lazy entry points only an agent with MCP servers imports. */
const MCP_ONLY = /^src\/(?:mcp\/|tools\/interaction\.ts$)/
const PACKAGE_PATH = /node_modules\/((?:@[^/]+\/)?[^/]+)/
const ENTRY_NAME = 'entry.ts'

/** Where a metafile input path comes from: its package, or `src` for this repository's code. */
export function packageOf(input: string): string {
  const match = PACKAGE_PATH.exec(input)
  return match ? match[1] : input.startsWith('src/') ? 'src' : input
}

/** Bundle one program, with or without code splitting, into `outdir` (nothing is written unless `write`). */
export async function bundleEntry(entry: BundleEntry, splitting: boolean, options: { outdir?: string, write?: boolean } = {}): Promise<BundleResult> {
  const outdir = options.outdir ?? `${REPO_ROOT}bench/.bundle-out`
  const result = await build({
    stdin: { contents: BUNDLE_ENTRIES[entry], resolveDir: REPO_ROOT, loader: 'ts', sourcefile: ENTRY_NAME },
    // zidane from its sources, under the names a host imports.
    alias: { zidane: './src' },
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    splitting,
    outdir,
    entryNames: 'entry',
    metafile: true,
    write: false,
    logLevel: 'silent',
  })
  const outputs = result.outputFiles.map(file => ({ path: file.path, contents: file.contents }))
  const initial = initialOutputs(result.metafile)
  const run = runOutputs(result.metafile)
  const byPackage = new Map<string, number>()
  const lazyRun = new Map<string, number>()
  const initialInputs = new Set<string>()
  let initialBytes = 0
  let initialGzipBytes = 0
  let runBytes = 0
  let runGzipBytes = 0
  let lazyBytes = 0
  for (const [path, output] of Object.entries(result.metafile.outputs)) {
    const file = outputs.find(candidate => candidate.path.endsWith(path.slice(path.lastIndexOf('/'))))
    const gzipped = file ? gzipSync(file.contents).length : 0
    if (run.has(path)) {
      runBytes += output.bytes
      runGzipBytes += gzipped
      if (!initial.has(path))
        addByPackage(lazyRun, output.inputs)
    }
    if (!initial.has(path)) {
      lazyBytes += output.bytes
      continue
    }
    initialBytes += output.bytes
    initialGzipBytes += gzipped
    addByPackage(byPackage, output.inputs)
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (bytesInOutput > 0)
        initialInputs.add(input)
    }
  }
  return {
    entry,
    splitting,
    initialBytes,
    initialGzipBytes,
    runBytes,
    runGzipBytes,
    lazyBytes,
    initialInputs: [...initialInputs].sort(),
    initialByPackage: [...byPackage].sort((a, b) => b[1] - a[1]),
    lazyRunByPackage: [...lazyRun].sort((a, b) => b[1] - a[1]),
    initialMcpBytes: byPackage.get(MCP_SDK) ?? 0,
    outputs,
  }
}

function addByPackage(totals: Map<string, number>, inputs: Metafile['outputs'][string]['inputs']): void {
  for (const [input, { bytesInOutput }] of Object.entries(inputs))
    totals.set(packageOf(input), (totals.get(packageOf(input)) ?? 0) + bytesInOutput)
}

/** The entry chunk and, transitively, every chunk it imports with a static `import` (what loads before the program's first line). */
export function initialOutputs(metafile: Metafile): Set<string> {
  return reachable(metafile, () => false)
}

/**
 * Chunks a run that configures no MCP server loads: the initial ones, plus
 * those reached through a lazy `import()` other than the MCP runtime's
 * (the Anthropic SDK client, the model data).
 */
export function runOutputs(metafile: Metafile): Set<string> {
  return reachable(metafile, target => !MCP_ONLY.test(metafile.outputs[target].entryPoint ?? ''))
}

function reachable(metafile: Metafile, followLazy: (target: string) => boolean): Set<string> {
  const outputs = metafile.outputs
  const start = Object.keys(outputs).find(path => outputs[path].entryPoint === ENTRY_NAME)
  const found = new Set<string>()
  const queue = start === undefined ? [] : [start]
  while (queue.length > 0) {
    const path = queue.pop()!
    if (found.has(path))
      continue
    found.add(path)
    for (const imported of outputs[path].imports) {
      if (imported.external)
        continue
      if (imported.kind === 'import-statement' || (imported.kind === 'dynamic-import' && followLazy(imported.path)))
        queue.push(imported.path)
    }
  }
  return found
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

/** `npm run bench` entry: both programs, both modes, the ratios, and the packages behind the initial code. */
export async function bundleBenchmark(): Promise<BundleResult[]> {
  console.log('bundle: esbuild, bundle + minify, platform node, format esm; zidane root + anthropic() + run() vs AI SDK generateText + @ai-sdk/anthropic')
  const results: BundleResult[] = []
  for (const splitting of [true, false]) {
    for (const entry of Object.keys(BUNDLE_ENTRIES) as BundleEntry[])
      results.push(await bundleEntry(entry, splitting))
  }
  const rows = results.map(result => [
    result.entry,
    result.splitting ? 'yes' : 'no',
    kb(result.initialBytes),
    kb(result.runBytes),
    kb(result.runGzipBytes),
    result.splitting ? kb(result.lazyBytes - (result.runBytes - result.initialBytes)) : '-',
    result.entry === 'zidane' ? kb(result.initialMcpBytes) : '-',
  ])
  printTable(['program', 'splitting', 'initial', 'a run loads', 'a run loads (gzip)', 'only with MCP', 'MCP SDK in initial'], rows)
  for (const splitting of [true, false]) {
    const ours = results.find(result => result.entry === 'zidane' && result.splitting === splitting)!
    const theirs = results.find(result => result.entry === 'AI SDK' && result.splitting === splitting)!
    const label = splitting ? 'with splitting' : 'without splitting (one file)'
    console.log(`${label}: zidane / AI SDK = ${(ours.runBytes / theirs.runBytes).toFixed(2)}× what a run loads (minified; ${(ours.runGzipBytes / theirs.runGzipBytes).toFixed(2)}× gzipped; target ≤ 1.00×), ${(ours.initialBytes / theirs.initialBytes).toFixed(2)}× initial code`)
  }
  for (const result of results.filter(candidate => candidate.splitting)) {
    const top = result.initialByPackage.slice(0, 6).map(([name, bytes]) => `${name} ${kb(bytes)}`).join(', ')
    console.log(`${result.entry}, initial code by package: ${top}`)
    if (result.lazyRunByPackage.length > 0)
      console.log(`${result.entry}, lazy code a run loads, by package: ${result.lazyRunByPackage.slice(0, 6).map(([name, bytes]) => `${name} ${kb(bytes)}`).join(', ')}`)
  }
  const split = results.find(result => result.entry === 'zidane' && result.splitting)!
  console.log(split.initialMcpBytes === 0
    ? `MCP SDK in zidane's initial chunks: none (it is in the lazy chunks, loaded only when mcpServers is configured)`
    : `MCP SDK in zidane's initial chunks: ${kb(split.initialMcpBytes)} — REGRESSION: an unused MCP client is in the initial code`)
  return results
}
