/**
 * cold-start: how long a fresh Node process takes to import zidane, next to
 * the Vercel AI SDK measured in the same run.
 *
 * Four programs, each run in its own fresh `node` process:
 *  - `zidane` (the built root entry) vs `ai`;
 *  - `zidane` + `zidane/providers/anthropic` vs `ai` + `@ai-sdk/anthropic`.
 * The child times its own `await import(…)` (performance.now() around the
 * imports) and the parent times the whole process, spawn to exit. The
 * programs are run ROUNDS times each, interleaved (one of each per round,
 * the order reversed every other round), so a busy moment on the machine
 * hits all of them alike; each figure is the median of its runs.
 *
 * zidane is imported from its built JavaScript, as a host would import it
 * (`builtZidane` in `built-code.ts`).
 */

import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { builtZidane } from './built-code'
import { median, printTable, quantile } from './measure'

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))
const ROUNDS = 15
const run = promisify(execFile)

/** One fresh process: how long its imports took, and the process as a whole. */
export interface ColdSample {
  importMs: number
  processMs: number
}

interface Program {
  name: string
  /** Module specifiers, imported one after the other. */
  imports: string[]
}

/** Run one program in a fresh node process. */
export async function coldSample(program: Program): Promise<ColdSample> {
  const script = [
    `const started = performance.now()`,
    ...program.imports.map(specifier => `await import(${JSON.stringify(specifier)})`),
    `process.stdout.write(JSON.stringify({ importMs: performance.now() - started }))`,
  ].join('\n')
  const spawned = process.hrtime.bigint()
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT, env: { ...process.env, NODE_OPTIONS: '' } })
  const processMs = Number(process.hrtime.bigint() - spawned) / 1e6
  const { importMs } = JSON.parse(stdout) as { importMs: number }
  return { importMs, processMs }
}

/** The four programs, zidane's from `dir`. */
export function coldPrograms(dir: string): Program[] {
  const entry = (name: string) => pathToFileURL(join(dir, `${name}.js`)).href
  return [
    { name: 'zidane', imports: [entry('index')] },
    { name: 'ai', imports: ['ai'] },
    { name: 'zidane + zidane/providers/anthropic', imports: [entry('index'), entry('providers/anthropic')] },
    { name: 'ai + @ai-sdk/anthropic', imports: ['ai', '@ai-sdk/anthropic'] },
  ]
}

const ms = (value: number) => `${value.toFixed(1)} ms`

/** `npm run bench` entry: ROUNDS fresh processes per program, interleaved; medians and the two ratios. */
export async function coldStart(rounds = ROUNDS): Promise<Map<string, ColdSample[]>> {
  const built = builtZidane()
  console.log(`cold-start: ${rounds} fresh node processes per program, interleaved; zidane from ${built.note}`)
  const programs = coldPrograms(built.dir)
  const samples = new Map<string, ColdSample[]>(programs.map(program => [program.name, []]))
  // One untimed round: the first process after a build pays for a cold disk cache.
  for (const program of programs)
    await coldSample(program)
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? programs : [...programs].reverse()
    for (const program of order)
      samples.get(program.name)!.push(await coldSample(program))
  }
  printTable(['program', 'import (median)', 'import p25–p75', 'process (median)'], programs.map((program) => {
    const own = samples.get(program.name)!
    const imports = own.map(sample => sample.importMs)
    return [program.name, ms(median(imports)), `${ms(quantile(imports, 0.25))}–${ms(quantile(imports, 0.75))}`, ms(median(own.map(sample => sample.processMs)))]
  }))
  for (const [ours, theirs] of [[programs[0], programs[1]], [programs[2], programs[3]]]) {
    const a = samples.get(ours.name)!
    const b = samples.get(theirs.name)!
    const importRatio = median(a.map(sample => sample.importMs)) / median(b.map(sample => sample.importMs))
    const processRatio = median(a.map(sample => sample.processMs)) / median(b.map(sample => sample.processMs))
    console.log(`${ours.name} / ${theirs.name}: import ${importRatio.toFixed(2)}×, whole process ${processRatio.toFixed(2)}× (target ≤ 1.00×)`)
  }
  return samples
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await coldStart()
