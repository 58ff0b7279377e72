import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { isAlive } from './support'

// A finished program exits by itself: between runs, an agent's stdio MCP
// servers do not keep Node's event loop alive (decisions, 2026-12-02-idle-agent-exit).

const CHILD = fileURLToPath(new URL('../support/idle-exit-child.ts', import.meta.url))
/** How long the program may take, start to exit (loading TypeScript and two servers included). */
const EXIT_BOUND_MS = 20_000

interface Finished {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Run the child program and wait for it to end by itself; SIGKILL it past the bound. */
function runProgram(mode: string): Promise<Finished & { timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, mode], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, EXIT_BOUND_MS)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, timedOut })
    })
  })
}

interface Report {
  stopReason: string
  results: string[]
}

function lastReport(stdout: string): Report {
  const line = stdout.trim().split('\n').at(-1) ?? ''
  return JSON.parse(line) as Report
}

/** The counter server's pids, from its `count` results. */
function counterPids(report: Report): number[] {
  return report.results.filter(text => text.includes('"pid"')).map(text => (JSON.parse(text) as { pid: number }).pid)
}

async function expectExitsByItself(mode: string): Promise<Report> {
  const finished = await runProgram(mode)
  expect({ timedOut: finished.timedOut, code: finished.code, stderr: finished.stderr }).toEqual({ timedOut: false, code: 0, stderr: '' })
  const report = lastReport(finished.stdout)
  expect(report.stopReason).toBe('completed')
  expect(report.results.filter(text => text === 'Echo: hello').length).toBeGreaterThan(0)
  // The servers go with the program: no orphan is left running.
  for (const pid of counterPids(report))
    await expect.poll(() => isAlive(pid), { timeout: 5_000 }).toBe(false)
  return report
}

describe('a program whose agent has stdio MCP servers', () => {
  it('exits by itself after its runs, without destroy(), and the runs share one server process', async () => {
    const report = await expectExitsByItself('plain')
    const counts = report.results.filter(text => text.includes('"pid"')).map(text => JSON.parse(text) as { count: number, pid: number })
    // Two runs, one process: letting go between runs does not restart the server.
    expect(counts.map(c => c.count)).toEqual([1, 2])
    expect(new Set(counts.map(c => c.pid)).size).toBe(1)
  }, 40_000)

  it('exits by itself when the servers go through a pool', async () => {
    await expectExitsByItself('pooled')
  }, 40_000)

  it('destroys the agent at the end of an `await using` block', async () => {
    const report = await expectExitsByItself('await-using')
    expect(report.results.filter(text => text.startsWith('closed')).sort()).toEqual(['closed counter', 'closed everything'])
  }, 40_000)
})
