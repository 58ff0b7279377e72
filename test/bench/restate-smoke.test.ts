import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

// The three Restate benchmarks in a small mode, each in its own process as
// its command runs it, for correctness only: each run completes on the real
// server and prints its ratio. No timing is asserted.

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = (file: string, ...args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', `bench/${file}`, ...args], { cwd: root, timeout: 50_000 }).then(({ stdout }) => stdout)

describe.concurrent('restate benchmarks, small mode', () => {
  it('restate-journal measures the journal of a completed run against the turns it added', async () => {
    const out = await run('restate-journal.ts', '8')
    expect(out).toContain('stop: completed, 9 model requests')
    expect(out).toMatch(/journal \/ added {3}= \d+\.\d\d×/)
  }, 60_000)

  it('restate-overhead times a plain and a durable run of one script', async () => {
    const out = await run('restate-overhead.ts', '1', '4')
    expect(out).toMatch(/restateAgent {7}\d+\.\d\d ms per turn {3}ratio \d+\.\d\d×/)
  }, 60_000)

  it('restate-resume times a restarted worker to its next model request', async () => {
    const out = await run('restate-resume.ts', '1')
    expect(out).toMatch(/spawn → first new model request {3}\d+ ms/)
  }, 60_000)
})
