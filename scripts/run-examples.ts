/**
 * Run every program in `examples/`, one after another, as CI does
 * (`npm run examples`). Each gets a time limit; the first one that fails or
 * runs out of time stops the whole run with a non-zero exit code.
 */
import { spawn } from 'node:child_process'
import { readdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const TIMEOUT_MS = 120_000
const dir = fileURLToPath(new URL('../examples/', import.meta.url))
// The quick start first, then the rest by name.
const names = (await readdir(dir)).filter(name => name.endsWith('.ts')).sort((a, b) => Number(b === 'quickstart.ts') - Number(a === 'quickstart.ts') || a.localeCompare(b))

for (const name of names) {
  console.log(`\n== examples/${name}`)
  const started = Date.now()
  const outcome = await runOne(`${dir}${name}`)
  if (outcome !== 0) {
    console.error(`examples/${name} ${outcome === 'timeout' ? `did not finish within ${TIMEOUT_MS / 1000} s` : `exited with ${outcome}`}`)
    process.exit(1)
  }
  console.log(`== examples/${name}: ok in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
console.log(`\nall ${names.length} examples ran`)

/** Run one example in its own process group, so a timeout also ends the processes it started. */
function runOne(path: string): Promise<number | string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path], { stdio: 'inherit', detached: true })
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL')
      resolve('timeout')
    }, TIMEOUT_MS)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      resolve(code ?? signal ?? 1)
    })
  })
}
