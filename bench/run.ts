/**
 * `npm run bench`: every benchmark in `bench/`, one after the other. Each
 * prints its own tables and compares against a baseline measured in the same
 * run, so figures from different machines are never compared directly.
 */

import { spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { bundleBenchmark } from './bundle'
import { codemodeBenchmark } from './codemode'
import { coldStart } from './cold-start'
import { contextBenchmark } from './context'
import { guards } from './guards'
import { loopOverhead } from './loop-overhead'
import { memoryBenchmark } from './memory'
import { sessionLease } from './session-lease'
import { sessionPersist } from './session-persist'
import { shortRun } from './short-run'
import { streamDeltas } from './stream-deltas'
import { turnFootprint } from './turn-footprint'

/**
 * A benchmark that is a script of its own (the Restate ones: each starts the
 * real server and stops it when it ends), run in a child process through tsx
 * with its output shown as it comes.
 */
function script(file: string): () => Promise<void> {
  return () => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' })
    child.once('error', reject)
    child.once('exit', code => code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`)))
  })
}

const BENCHMARKS: readonly { name: string, run: () => Promise<unknown> }[] = [
  { name: 'loop-overhead', run: loopOverhead },
  { name: 'turn-footprint', run: () => turnFootprint({ files: 12 }) },
  { name: 'session-persist', run: sessionPersist },
  { name: 'session-lease', run: () => sessionLease() },
  { name: 'guards', run: guards },
  { name: 'context', run: contextBenchmark },
  { name: 'cold-start', run: coldStart },
  { name: 'short-run', run: () => shortRun() },
  { name: 'bundle', run: bundleBenchmark },
  { name: 'stream-deltas', run: () => streamDeltas() },
  { name: 'memory', run: memoryBenchmark },
  { name: 'codemode', run: () => codemodeBenchmark() },
  { name: 'restate-journal', run: script('./restate-journal.ts') },
  { name: 'restate-overhead', run: script('./restate-overhead.ts') },
  { name: 'restate-resume', run: script('./restate-resume.ts') },
]

console.log(`zidane benchmarks — Node ${process.version}, ${process.platform}/${process.arch}, ${availableParallelism()} CPUs\n`)
for (const benchmark of BENCHMARKS) {
  const started = process.hrtime.bigint()
  await benchmark.run()
  console.log(`\n${benchmark.name} took ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s\n`)
}
