import type { ProgramEnd } from '../support/child-runs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { connectMcpServers, createMcpServerPool } from '../../src/mcp'
import { runUntilExit } from '../support/child-runs'
import { isAlive, startHttpMcpServer, toolContext } from './support'

// A finished program exits by itself: between runs, an agent's stdio MCP
// servers do not keep Node's event loop alive (decisions, 2026-12-02-idle-agent-exit).

const CHILD = fileURLToPath(new URL('../support/idle-exit-child.ts', import.meta.url))
const COUNTER_ENTRY = fileURLToPath(new URL('./fixtures/counter-server.mjs', import.meta.url))
/** How long the program may take, start to exit (loading TypeScript and two servers included). */
const EXIT_BOUND_MS = 20_000

/** Run the child program and wait for it to end by itself; SIGKILL it past the bound. */
function runProgram(args: string[]): Promise<ProgramEnd> {
  return runUntilExit(CHILD, args, EXIT_BOUND_MS)
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

async function exitsByItself(args: string[]): Promise<Report> {
  const finished = await runProgram(args)
  expect({ timedOut: finished.timedOut, code: finished.code, stderr: finished.stderr }).toEqual({ timedOut: false, code: 0, stderr: '' })
  const report = lastReport(finished.stdout)
  expect(report.stopReason).toBe('completed')
  return report
}

async function expectExitsByItself(mode: string): Promise<Report> {
  const report = await exitsByItself([mode])
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

describe('a program whose agent has a streamable-HTTP MCP server', () => {
  it('exits by itself after its runs, without destroy(), on one session', async () => {
    const server = await startHttpMcpServer()
    try {
      const report = await exitsByItself(['http', server.url])
      expect(report.results).toEqual(['3', '7'])
      // One session for both runs: letting go between runs closes the event stream, not the session.
      expect(server.methods.filter(method => method === 'initialize')).toHaveLength(1)
    }
    finally {
      await server.close()
    }
  }, 40_000)
})

describe('a streamable-HTTP connection let go of', () => {
  it('closes its event stream while idle and reopens it when held again', async () => {
    const server = await startHttpMcpServer()
    const mcp = await connectMcpServers([{ name: 'remote', transport: 'streamable-http', url: server.url }])
    try {
      await expect.poll(() => server.eventStreams).toBe(1)
      mcp.holdEventLoop!(false)
      // The SDK asks for the stream again after its reconnect delay (1 s); idle, the request never leaves.
      await new Promise(resolve => setTimeout(resolve, 1_500))
      expect(server.eventStreams).toBe(1)
      // Calls still work while idle: only the event stream is paused, not the session.
      expect(await mcp.tools.mcp__remote__add.execute({ a: 2, b: 3 }, toolContext())).toBe('5')
      mcp.holdEventLoop!(true)
      await expect.poll(() => server.eventStreams).toBe(2)
      expect(server.methods.filter(method => method === 'initialize')).toHaveLength(1)
    }
    finally {
      await mcp.close()
      await server.close()
    }
  }, 20_000)
})

/** Child processes that keep this process's event loop alive. */
function heldProcesses(): number {
  return process.getActiveResourcesInfo().filter(kind => kind === 'ProcessWrap').length
}

describe('a pooled stdio server', () => {
  it('keeps the event loop alive while any connection using it holds it', async () => {
    const pool = createMcpServerPool()
    const servers = [{ name: 'counter', transport: 'stdio' as const, command: process.execPath, args: [COUNTER_ENTRY] }]
    const before = heldProcesses()
    const first = await connectMcpServers(servers, { pool, poolKey: 'a' })
    const second = await connectMcpServers(servers, { pool, poolKey: 'b' })
    try {
      expect(pool.size).toBe(1)
      expect(heldProcesses()).toBe(before + 1)
      first.holdEventLoop!(false)
      expect(heldProcesses()).toBe(before + 1)
      second.holdEventLoop!(false)
      expect(heldProcesses()).toBe(before)
      // Let go of, the process still serves calls.
      expect(await first.tools.mcp__counter__count.execute({}, toolContext())).toContain('"count":1')
      second.holdEventLoop!(true)
      expect(heldProcesses()).toBe(before + 1)
      await second.close()
      // The last holder left: the process stays up for the other connection, without holding.
      expect(heldProcesses()).toBe(before)
    }
    finally {
      await first.close()
      await second.close()
      await pool.close()
    }
  }, 20_000)
})
