/**
 * short-run: the end-to-end wall time of a short tool-using run in a fresh
 * Node process, zidane next to the Vercel AI SDK measured in the same run.
 *
 * Each program imports its SDK, builds its agent and runs the loop
 * benchmark's conversation (`loop-script.ts`, `read-note.ts`) cut to
 * SHORT_RUN_TURNS turns: three turns that each stream some text and call
 * `read_note`, then a text-only answer. All talk the Anthropic Messages API
 * to the fake server in its own process (`server-process.ts`), over
 * 127.0.0.1: zidane always streams; the AI SDK runs twice, through
 * `streamText` and through `generateText` (no stream: each answer is one JSON
 * body). So the figure is what a user of a one-shot script waits
 * for: Node's start, the imports, the provider SDK's load, four requests and
 * three tool calls, and the exit.
 *
 * Two more programs run the zidane program and the `generateText` one as a
 * host ships them for a fast start (a command line, a serverless function):
 * each bundled by esbuild into one file (`bundle.ts`'s settings), which Node
 * reads and compiles at once instead of module by module. The difference is
 * mostly the Anthropic SDK, which zidane loads and the AI SDK does not: as
 * installed it is a few hundred files (see
 * docs/decisions/2026-12-04-anthropic-sdk-not-vendored.md).
 *
 * Each child reports `performance.now()` when its run has returned (Node's
 * clock starts with the process), split at the end of its imports; the parent
 * times the process from spawn to exit. The programs run ROUNDS times each,
 * interleaved, the order rotated every round, after one untimed round.
 * zidane is imported from its built JavaScript (`builtZidane()`, as in
 * cold-start); the smoke test runs the same programs on the sources. The
 * bundled programs are always made from the sources, as the bundle
 * benchmark's are (the published chunks are built from them).
 */

import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { builtZidane } from './built-code'
import { bundleEntry } from './bundle'
import { FINAL_TEXT } from './loop-script'
import { median, printTable, quantile } from './measure'
import { PROMPT, READ_NOTE_SPEC, readNote, SYSTEM } from './read-note'
import { startServerProcess } from './server-process'

/** Turns of the short run: three with a tool call, then the answer. */
export const SHORT_RUN_TURNS = 4
const ROUNDS = 15
const MODEL = 'claude-sonnet-5-5'
const MAX_TOKENS = 1024
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)

/** One fresh process running the short run. */
export interface ShortRunSample {
  /** From the process's start to the end of the SDK's imports, as the child measured it. */
  importedMs: number
  /** From the process's start to the run's result, as the child measured it. */
  doneMs: number
  /** The parent's wall time, spawn to exit. */
  processMs: number
  /** Model requests the run made (turns for zidane, steps for the AI SDK). */
  turns: number
  /** How many times the tool ran. */
  toolCalls: number
  /** The final answer's text. */
  text: string
}

/** A program: a name and the ES module source its child runs. */
export interface ShortRunProgram {
  name: string
  source: string
  /** Run as the one file esbuild makes of `source`, with zidane from its sources (see `bundleEntry`). */
  bundled?: boolean
}

/** Where the zidane program imports zidane from, and the flags its node needs for that. */
export interface ZidaneEntries {
  /** URL of the root entry. */
  root: string
  /** URL of `zidane/providers/anthropic`. */
  anthropic: string
  /** Extra `node` flags for every child (the AI SDK's too, so both run alike). */
  nodeArgs: string[]
  /** Said in the first line of the output. */
  note: string
}

/** zidane's built JavaScript, as a host imports it (see `builtZidane`). */
export function builtEntries(): ZidaneEntries {
  const built = builtZidane()
  const entry = (name: string) => pathToFileURL(join(built.dir, `${name}.js`)).href
  return { root: entry('index'), anthropic: entry('providers/anthropic'), nodeArgs: [], note: built.note }
}

/** zidane's sources through tsx: no build, for checking that the programs run (never for timing). */
export function sourceEntries(): ZidaneEntries {
  const entry = (path: string) => pathToFileURL(join(REPO_ROOT, 'src', path)).href
  return { root: entry('index.ts'), anthropic: entry('providers/anthropic/index.ts'), nodeArgs: ['--import', 'tsx'], note: 'the sources through tsx' }
}

// `read-note.ts` imports nothing, so its function's source runs as it is in a child.
const TOOL_SOURCE = `let toolCalls = 0
const readNote = ${String(readNote)}
const readNoteSpec = ${JSON.stringify(READ_NOTE_SPEC)}
const countedReadNote = (input) => { toolCalls++; return readNote(input) }`

function report(turns: string, text: string): string {
  return `process.stdout.write(JSON.stringify({ importedMs, doneMs: performance.now(), turns: ${turns}, toolCalls, text: ${text} }))`
}

/** The three programs run as they are: zidane (importing `entries`), `streamText` and `generateText`. */
export function shortRunPrograms(entries: ZidaneEntries): ShortRunProgram[] {
  const zidane = [
    `const { createAgent } = await import(${JSON.stringify(entries.root)})`,
    `const { anthropic } = await import(${JSON.stringify(entries.anthropic)})`,
    `const importedMs = performance.now()`,
    TOOL_SOURCE,
    `const agent = createAgent({`,
    `  provider: anthropic({ apiKey: 'bench', baseURL: process.env.SHORT_RUN_URL, defaultModel: ${JSON.stringify(MODEL)} }),`,
    `  tools: { readNote: { spec: readNoteSpec, execute: countedReadNote } },`,
    `  system: ${JSON.stringify(SYSTEM)},`,
    `  behavior: { maxTurns: 10, maxTokens: ${MAX_TOKENS} },`,
    `})`,
    `const stats = await agent.run({ prompt: ${JSON.stringify(PROMPT)} })`,
    report('stats.turns', 'stats.text'),
  ]
  // What the two AI SDK programs share: the provider, and the call's options.
  const aiSdkSetup = [
    `const { createAnthropic } = await import('@ai-sdk/anthropic')`,
    `const importedMs = performance.now()`,
    TOOL_SOURCE,
    `const model = createAnthropic({ apiKey: 'bench', baseURL: process.env.SHORT_RUN_URL + '/v1' })(${JSON.stringify(MODEL)})`,
  ]
  const aiSdkOptions = [
    `  model,`,
    `  system: ${JSON.stringify(SYSTEM)},`,
    `  prompt: ${JSON.stringify(PROMPT)},`,
    `  maxOutputTokens: ${MAX_TOKENS},`,
    `  stopWhen: stepCountIs(10),`,
    `  tools: { read_note: tool({ description: readNoteSpec.description, inputSchema: jsonSchema(readNoteSpec.inputSchema), execute: async input => countedReadNote(input) }) },`,
  ]
  const aiSdkStream = [
    `const { jsonSchema, stepCountIs, streamText, tool } = await import('ai')`,
    ...aiSdkSetup,
    `const result = streamText({`,
    ...aiSdkOptions,
    `})`,
    `const text = await result.text`,
    `const steps = await result.steps`,
    report('steps.length', 'text'),
  ]
  // The same run without streaming: each answer comes as one JSON body.
  const aiSdkGenerate = [
    `const { generateText, jsonSchema, stepCountIs, tool } = await import('ai')`,
    ...aiSdkSetup,
    `const result = await generateText({`,
    ...aiSdkOptions,
    `})`,
    report('result.steps.length', 'result.text'),
  ]
  return [
    { name: 'zidane + zidane/providers/anthropic', source: zidane.join('\n') },
    { name: 'ai + @ai-sdk/anthropic (streamText)', source: aiSdkStream.join('\n') },
    { name: 'ai + @ai-sdk/anthropic (generateText)', source: aiSdkGenerate.join('\n') },
  ]
}

/** The zidane and `generateText` programs again, each to run as one bundled file. */
export function bundledShortRunPrograms(): ShortRunProgram[] {
  const [zidane, , generate] = shortRunPrograms({ root: 'zidane', anthropic: 'zidane/providers/anthropic', nodeArgs: [], note: '' })
  return [
    { name: `${zidane.name}, bundled`, source: zidane.source, bundled: true },
    { name: `${generate.name}, bundled`, source: generate.source, bundled: true },
  ]
}

/** Bundle each bundled program into `dir`; the file each one runs, by name. */
async function writeBundles(programs: readonly ShortRunProgram[], dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  for (const [index, program] of programs.entries()) {
    if (!program.bundled)
      continue
    const { outputs } = await bundleEntry('zidane', false, { source: program.source })
    if (outputs.length !== 1)
      throw new Error(`short-run: bundling ${program.name} gave ${outputs.length} files, expected one`)
    const file = join(dir, `program-${index}.mjs`)
    writeFileSync(file, outputs[0].contents)
    files.set(program.name, file)
  }
  return files
}

/**
 * Run one program in a fresh node process against the fake server at `url`:
 * its source, or the bundle made of it when `file` is given.
 */
export async function shortRunSample(program: ShortRunProgram, url: string, nodeArgs: readonly string[] = [], file?: string): Promise<ShortRunSample> {
  const args = file === undefined ? [...nodeArgs, '--input-type=module', '-e', program.source] : [file]
  const spawned = process.hrtime.bigint()
  const { stdout } = await run(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_OPTIONS: '', SHORT_RUN_URL: url },
    timeout: 60_000,
  })
  const processMs = Number(process.hrtime.bigint() - spawned) / 1e6
  return { ...JSON.parse(stdout) as Omit<ShortRunSample, 'processMs'>, processMs }
}

/** Check that a sample ran the whole conversation; a benchmark of a broken run would mean nothing. */
export function checkShortRun(name: string, sample: ShortRunSample): void {
  const expected = { turns: SHORT_RUN_TURNS, toolCalls: SHORT_RUN_TURNS - 1, text: FINAL_TEXT }
  const got = { turns: sample.turns, toolCalls: sample.toolCalls, text: sample.text }
  if (JSON.stringify(got) !== JSON.stringify(expected))
    throw new Error(`short-run: ${name} did not run the scripted conversation: ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`)
}

const ms = (value: number) => `${value.toFixed(0)} ms`

export interface ShortRunOptions {
  /** Timed processes per program (default 15). */
  rounds?: number
  /** zidane's entries (default: the built JavaScript). */
  zidane?: ZidaneEntries
}

/** `npm run bench` entry: `rounds` fresh processes per program, interleaved; medians and the ratio. */
export async function shortRun(options: ShortRunOptions = {}): Promise<Map<string, ShortRunSample[]>> {
  const rounds = options.rounds ?? ROUNDS
  const entries = options.zidane ?? builtEntries()
  console.log(`short-run: a ${SHORT_RUN_TURNS}-turn run in a fresh node process, ${rounds} per program, interleaved; zidane from ${entries.note}`)
  const [zidane, streamed, generated] = shortRunPrograms(entries)
  const [zidaneBundled, generatedBundled] = bundledShortRunPrograms()
  const programs = [zidane, streamed, generated, zidaneBundled, generatedBundled]
  const samples = new Map<string, ShortRunSample[]>(programs.map(program => [program.name, []]))
  const dir = mkdtempSync(join(tmpdir(), 'zidane-short-run-'))
  const server = await startServerProcess('anthropic', SHORT_RUN_TURNS, 1)
  try {
    const files = await writeBundles(programs, dir)
    const sample = (program: ShortRunProgram) => shortRunSample(program, server.url, entries.nodeArgs, files.get(program.name))
    // One untimed round: the first processes read cold files.
    for (const program of programs)
      checkShortRun(program.name, await sample(program))
    for (let round = 0; round < rounds; round++) {
      // Each program in each position in turn, so none always runs right after another.
      const order = programs.map((_, i) => programs[(i + round) % programs.length])
      for (const program of order) {
        const measured = await sample(program)
        checkShortRun(program.name, measured)
        samples.get(program.name)!.push(measured)
      }
    }
  }
  finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  printTable(['program', 'imports done (median)', 'run done (median)', 'run done p25–p75', 'process (median)'], programs.map((program) => {
    const own = samples.get(program.name)!
    const done = own.map(sample => sample.doneMs)
    return [
      program.name,
      ms(median(own.map(sample => sample.importedMs))),
      ms(median(done)),
      `${ms(quantile(done, 0.25))}–${ms(quantile(done, 0.75))}`,
      ms(median(own.map(sample => sample.processMs))),
    ]
  }))
  // zidane against each AI SDK program loaded the same way.
  for (const [ours, baseline] of [[zidane, streamed], [zidane, generated], [zidaneBundled, generatedBundled]]) {
    const mine = samples.get(ours.name)!
    const theirs = samples.get(baseline.name)!
    const doneRatio = median(mine.map(sample => sample.doneMs)) / median(theirs.map(sample => sample.doneMs))
    const processRatio = median(mine.map(sample => sample.processMs)) / median(theirs.map(sample => sample.processMs))
    console.log(`${ours.name} / ${baseline.name}: run done ${doneRatio.toFixed(2)}×, whole process ${processRatio.toFixed(2)}× (target ≤ 1.00×)`)
  }
  return samples
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await shortRun()
