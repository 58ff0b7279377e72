/**
 * bundle: how much code a host ships for the smallest useful program, next to
 * the same program on the Vercel AI SDK, bundled by esbuild in the same run.
 *
 * Three entries, each a complete one-prompt program:
 *  - zidane: `createAgent({ provider: anthropic({ apiKey }) })` + `agent.run()`,
 *    from `zidane` and `zidane/providers/anthropic` (the sources, which is
 *    what the published chunks are made of);
 *  - zidane + MCP: the same with `mcpServers` and
 *    `mcpConnector: connectMcpServers` from `zidane/mcp`, the way a bundled
 *    program uses MCP servers (shown for what MCP costs; no target);
 *  - AI SDK: `generateText({ model: anthropic(…) })` from `ai` and `@ai-sdk/anthropic`.
 *
 * Each is bundled with `bundle: true, minify: true, platform: 'node',
 * format: 'esm'` (and the `createRequire` banner such bundles carry), twice: as one file (esbuild's default: every lazy
 * `import()` is inlined) and with code splitting (a lazy `import()` becomes
 * its own chunk; the *initial* code is the entry plus every chunk it imports
 * statically). The figure compared is everything the program can load: the
 * whole file, or the initial chunks plus every lazy chunk they reach. The
 * metafile tells which package each byte came from; the MCP SDK must not be
 * in the plain zidane program at all.
 */

import type { Metafile } from 'esbuild'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { printTable } from './measure'

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The programs; each reads the key and base URL (and the MCP server's script) from the environment, so the bundles can run against fakes. */
export const BUNDLE_ENTRIES = {
  'zidane': [
    `import { createAgent } from 'zidane'`,
    `import { anthropic } from 'zidane/providers/anthropic'`,
    `const agent = createAgent({ provider: anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL: process.env.ANTHROPIC_BASE_URL }) })`,
    `const stats = await agent.run({ prompt: 'Say hello.' })`,
    `console.log(JSON.stringify({ turns: stats.turns }))`,
  ].join('\n'),
  'zidane + MCP': [
    `import { createAgent } from 'zidane'`,
    `import { connectMcpServers } from 'zidane/mcp'`,
    `import { anthropic } from 'zidane/providers/anthropic'`,
    `const mcpServers = process.env.MCP_SERVER_SCRIPT ? [{ name: 'counter', transport: 'stdio', command: process.execPath, args: [process.env.MCP_SERVER_SCRIPT] }] : []`,
    `const agent = createAgent({ provider: anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL: process.env.ANTHROPIC_BASE_URL }), mcpServers, mcpConnector: connectMcpServers })`,
    `const stats = await agent.run({ prompt: 'Count.' })`,
    `await agent.destroy()`,
    `console.log(JSON.stringify({ turns: stats.turns, text: stats.text }))`,
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
  /** Minified bytes of everything the program can load: the initial chunks and every lazy chunk they reach (the whole file without splitting). */
  loadableBytes: number
  /** The same, gzipped chunk by chunk. */
  loadableGzipBytes: number
  /** Input files (repo-relative) whose code is in the output. */
  inputs: string[]
  /** Bytes in the output per package (`src` for zidane's own code), largest first. */
  byPackage: [string, number][]
  /** Bytes of MCP SDK code in the output: 0 is the target for a program without MCP servers. */
  mcpBytes: number
  /** The output files by path, for a caller that runs the bundle. */
  outputs: { path: string, contents: Uint8Array }[]
}

const MCP_SDK = '@modelcontextprotocol/sdk'
const PACKAGE_PATH = /node_modules\/((?:@[^/]+\/)?[^/]+)/
const ENTRY_NAME = 'entry.ts'

/** Where a metafile input path comes from: its package, or `src` for this repository's code. */
export function packageOf(input: string): string {
  const match = PACKAGE_PATH.exec(input)
  return match ? match[1] : input.startsWith('src/') ? 'src' : input
}

/**
 * Bundle one program, with or without code splitting, into `outdir` (nothing
 * is written unless `write`). `source` replaces the program's text, for a
 * test that bundles a variant.
 */
export async function bundleEntry(entry: BundleEntry, splitting: boolean, options: { outdir?: string, write?: boolean, source?: string } = {}): Promise<BundleResult> {
  const outdir = options.outdir ?? `${REPO_ROOT}bench/.bundle-out`
  const result = await build({
    stdin: { contents: options.source ?? BUNDLE_ENTRIES[entry], resolveDir: REPO_ROOT, loader: 'ts', sourcefile: ENTRY_NAME },
    // zidane from its sources, under the names a host imports.
    alias: { zidane: './src' },
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    // The usual line of an ES module bundle for Node: CommonJS dependencies
    // (the MCP SDK's cross-spawn) call require() for Node's own modules.
    banner: { js: `import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);` },
    splitting,
    outdir,
    entryNames: 'entry',
    metafile: true,
    write: false,
    logLevel: 'silent',
  })
  const outputs = result.outputFiles.map(file => ({ path: file.path, contents: file.contents }))
  const initial = reachable(result.metafile, false)
  const loadable = reachable(result.metafile, true)
  const byPackage = new Map<string, number>()
  const inputs = new Set<string>()
  let initialBytes = 0
  let loadableBytes = 0
  let loadableGzipBytes = 0
  for (const [path, output] of Object.entries(result.metafile.outputs)) {
    if (!loadable.has(path))
      continue
    const file = outputs.find(candidate => candidate.path.endsWith(path.slice(path.lastIndexOf('/'))))
    loadableBytes += output.bytes
    loadableGzipBytes += file ? gzipSync(file.contents).length : 0
    if (initial.has(path))
      initialBytes += output.bytes
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytesInOutput)
      if (bytesInOutput > 0)
        inputs.add(input)
    }
  }
  return {
    entry,
    splitting,
    initialBytes,
    loadableBytes,
    loadableGzipBytes,
    inputs: [...inputs].sort(),
    byPackage: [...byPackage].sort((a, b) => b[1] - a[1]),
    mcpBytes: byPackage.get(MCP_SDK) ?? 0,
    outputs,
  }
}

/**
 * The entry chunk and, transitively, every chunk it imports: with a static
 * `import` only (what loads before the program's first line), or through
 * lazy `import()` too (everything the program can ever load).
 */
export function reachable(metafile: Metafile, followLazy: boolean): Set<string> {
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
      if (imported.kind === 'import-statement' || (imported.kind === 'dynamic-import' && followLazy))
        queue.push(imported.path)
    }
  }
  return found
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

/** `npm run bench` entry: every program, both modes, the ratios, and the packages behind the code. */
export async function bundleBenchmark(): Promise<BundleResult[]> {
  console.log('bundle: esbuild, bundle + minify, platform node, format esm; zidane root + anthropic() + run() vs AI SDK generateText + @ai-sdk/anthropic')
  const results: BundleResult[] = []
  for (const splitting of [false, true]) {
    for (const entry of Object.keys(BUNDLE_ENTRIES) as BundleEntry[])
      results.push(await bundleEntry(entry, splitting))
  }
  const rows = results.map(result => [
    result.entry,
    result.splitting ? 'yes' : 'no (one file)',
    kb(result.initialBytes),
    kb(result.loadableBytes),
    kb(result.loadableGzipBytes),
    result.entry === 'AI SDK' ? '-' : kb(result.mcpBytes),
  ])
  printTable(['program', 'splitting', 'initial', 'all it can load', 'all it can load (gzip)', 'MCP SDK'], rows)
  const find = (entry: BundleEntry, splitting: boolean) => results.find(result => result.entry === entry && result.splitting === splitting)!
  for (const splitting of [false, true]) {
    const ours = find('zidane', splitting)
    const theirs = find('AI SDK', splitting)
    const label = splitting ? 'with splitting' : 'one file'
    console.log(`${label}: zidane / AI SDK = ${(ours.loadableBytes / theirs.loadableBytes).toFixed(2)}× (minified; ${(ours.loadableGzipBytes / theirs.loadableGzipBytes).toFixed(2)}× gzipped; target ≤ 1.00×), ${(ours.initialBytes / theirs.initialBytes).toFixed(2)}× initial code`)
  }
  for (const result of results.filter(candidate => !candidate.splitting)) {
    const top = result.byPackage.slice(0, 6).map(([name, bytes]) => `${name} ${kb(bytes)}`).join(', ')
    console.log(`${result.entry}, one file by package: ${top}`)
  }
  const plain = find('zidane', false)
  const withMcp = find('zidane + MCP', false)
  console.log(`MCP through mcpConnector adds ${kb(withMcp.loadableBytes - plain.loadableBytes)} to the one file`)
  console.log(plain.mcpBytes === 0
    ? `MCP SDK in the zidane program: none, one file or split (the built-in connector is found at run time, never bundled)`
    : `MCP SDK in the zidane program: ${kb(plain.mcpBytes)} — REGRESSION: an unused MCP client is in the bundle`)
  return results
}
