import type { ConnectMcpServersOptions, McpConnection, McpServerConfig, McpServerPool } from '../../src/mcp'
import type { TestHttpServer } from './support'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { connectMcpServers, createMcpServerPool } from '../../src/mcp'
import { EVERYTHING_ENTRY, isAlive, startHttpMcpServer, toolContext } from './support'

const COUNTER_ENTRY = fileURLToPath(new URL('./fixtures/counter-server.mjs', import.meta.url))
const STUBBORN_ENTRY = fileURLToPath(new URL('./fixtures/stubborn-server.mjs', import.meta.url))
const REAPED = { timeout: 10_000 }

const connections: McpConnection[] = []
const pools: McpServerPool[] = []
const pids: number[] = []
let dir: string
let spawnLog: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'zidane-mcp-pool-'))
  spawnLog = join(dir, 'spawns.log')
})

afterEach(async () => {
  await Promise.all(connections.splice(0).map(c => c.close()))
  await Promise.all(pools.splice(0).map(p => p.close()))
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    }
    catch {
      // Already reaped, as it should be.
    }
  }
  rmSync(dir, { recursive: true, force: true })
})

function pool(...args: Parameters<typeof createMcpServerPool>): McpServerPool {
  const created = createMcpServerPool(...args)
  pools.push(created)
  return created
}

async function connect(configs: McpServerConfig[], options?: ConnectMcpServersOptions): Promise<McpConnection> {
  const connection = await connectMcpServers(configs, options)
  connections.push(connection)
  for (const server of connection.servers) {
    if (server.pid !== undefined)
      pids.push(server.pid)
  }
  return connection
}

function counter(overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name: 'counter',
    transport: 'stdio',
    command: process.execPath,
    args: [COUNTER_ENTRY],
    env: { COUNTER_SPAWN_LOG: spawnLog },
    ...overrides,
  }
}

async function count(mcp: McpConnection): Promise<{ count: number, pid: number }> {
  return JSON.parse(await mcp.tools.mcp__counter__count.execute({}, toolContext()) as string)
}

function spawns(): number {
  return existsSync(spawnLog) ? readFileSync(spawnLog, 'utf8').split('\n').filter(Boolean).length : 0
}

describe('sharing', () => {
  it('two connections with the same config share one process and its state', async () => {
    const shared = pool()
    const a = await connect([counter()], { pool: shared })
    const b = await connect([counter({ name: 'renamed-elsewhere' }), counter()], { pool: shared })
    expect(a.servers[0].status).toBe('connected')
    expect(b.servers[1].pid).toBe(a.servers[0].pid)
    expect(b.servers[0].pid).toBe(a.servers[0].pid)
    // Instructions and tool listing work for every pooled connection.
    expect(b.servers[1].instructions).toBe('Counts calls.')
    expect(b.servers[1].tools).toEqual(['count'])

    expect(await count(a)).toEqual({ count: 1, pid: a.servers[0].pid })
    expect(await count(b)).toEqual({ count: 2, pid: a.servers[0].pid })
    expect(spawns()).toBe(1)
    expect(shared.size).toBe(1)
    expect(shared.servers()).toEqual([expect.objectContaining({ pid: a.servers[0].pid, refs: 3, state: 'ready' })])

    // The same config without the pool spawns a process of its own, with its own state.
    const own = await connect([counter()])
    expect(own.servers[0].pid).not.toBe(a.servers[0].pid)
    expect(await count(own)).toEqual({ count: 1, pid: own.servers[0].pid })
    expect(spawns()).toBe(2)
    expect(shared.size).toBe(1)
  })

  it('keys on what changes the process: a different env gets its own', async () => {
    const shared = pool()
    const a = await connect([counter({ env: { COUNTER_SPAWN_LOG: spawnLog, FLAVOR: 'a' } })], { pool: shared })
    const b = await connect([counter({ env: { FLAVOR: 'a', COUNTER_SPAWN_LOG: spawnLog } })], { pool: shared })
    const c = await connect([counter({ env: { COUNTER_SPAWN_LOG: spawnLog, FLAVOR: 'c' } })], { pool: shared })
    expect(b.servers[0].pid).toBe(a.servers[0].pid)
    expect(c.servers[0].pid).not.toBe(a.servers[0].pid)
    expect(shared.size).toBe(2)
  })

  it('shared: false gives each poolKey its own process, and shares within one key', async () => {
    const shared = pool()
    const config = counter({ shared: false })
    const session = await connect([config], { pool: shared, poolKey: 'session-1' })
    const subagent = await connect([config], { pool: shared, poolKey: 'session-1' })
    const other = await connect([config], { pool: shared, poolKey: 'session-2' })
    expect(subagent.servers[0].pid).toBe(session.servers[0].pid)
    expect(other.servers[0].pid).not.toBe(session.servers[0].pid)

    expect((await count(session)).count).toBe(1)
    expect((await count(subagent)).count).toBe(2)
    expect((await count(other)).count).toBe(1)
    expect(spawns()).toBe(2)
    expect(shared.servers().map(s => [s.poolKey, s.refs]).sort()).toEqual([['session-1', 2], ['session-2', 1]])
  })

  it('shared: false without a poolKey is private to its connection, but still reaped by the pool', async () => {
    const shared = pool()
    const a = await connect([counter({ shared: false })], { pool: shared })
    const b = await connect([counter({ shared: false })], { pool: shared })
    expect(a.servers[0].pid).not.toBe(b.servers[0].pid)
    expect(shared.size).toBe(2)
    await shared.close()
    await expect.poll(() => isAlive(a.servers[0].pid!) || isAlive(b.servers[0].pid!), REAPED).toBe(false)
  })

  it('concurrent connects with the same config spawn once', async () => {
    const shared = pool()
    const all = await Promise.all([1, 2, 3].map(() => connect([counter()], { pool: shared })))
    expect(new Set(all.map(c => c.servers[0].pid)).size).toBe(1)
    expect(all.every(c => c.servers[0].status === 'connected')).toBe(true)
    expect(spawns()).toBe(1)
    expect(shared.servers()).toEqual([expect.objectContaining({ refs: 3 })])
  })

  it('a lazyConnect server acquires on its first call', async () => {
    const shared = pool()
    const eager = await connect([counter()], { pool: shared })
    const lazy = await connect([counter({ lazyConnect: true, cachedTools: [{ name: 'count' }] })], { pool: shared })
    expect(lazy.servers[0].status).toBe('lazy')
    expect(shared.servers()[0].refs).toBe(1)
    expect(await count(eager)).toMatchObject({ count: 1 })
    expect(await count(lazy)).toEqual({ count: 2, pid: eager.servers[0].pid })
    expect(lazy.servers[0].status).toBe('connected')
    expect(shared.servers()[0].refs).toBe(2)
    expect(spawns()).toBe(1)
  })
})

describe('lifetime', () => {
  it('closing one connection keeps the process serving the other; closing the last reaps it', async () => {
    const shared = pool()
    const a = await connect([counter()], { pool: shared })
    const b = await connect([counter()], { pool: shared })
    const pid = a.servers[0].pid!
    expect(await count(a)).toMatchObject({ count: 1 })

    await a.close()
    expect(a.servers[0].status).toBe('closed')
    expect(isAlive(pid)).toBe(true)
    expect(b.servers[0].status).toBe('connected')
    expect(await count(b)).toEqual({ count: 2, pid })
    expect(shared.servers()).toEqual([expect.objectContaining({ refs: 1 })])

    await b.close()
    expect(shared.size).toBe(0)
    await expect.poll(() => isAlive(pid), REAPED).toBe(false)
  })

  it('pool.close() reaps every process and later connects fail', async () => {
    const shared = pool()
    const a = await connect([counter()], { pool: shared })
    const b = await connect([counter({ shared: false })], { pool: shared, poolKey: 's' })
    const everything = await connect([{ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] }], { pool: shared })
    const live = [a, b, everything].map(c => c.servers[0].pid!)
    expect(new Set(live).size).toBe(3)
    expect(shared.size).toBe(3)

    await shared.close()
    expect(shared.size).toBe(0)
    await expect.poll(() => live.filter(isAlive), REAPED).toEqual([])
    await expect.poll(() => a.servers[0].status).toBe('closed')

    const late = await connect([counter()], { pool: shared })
    expect(late.servers[0].status).toBe('failed')
    expect(late.servers[0].error?.message).toMatch(/pool is closed/)
    expect(spawns()).toBe(2)
  })

  it('pool.close() SIGKILLs a pooled child that ignores its close', async () => {
    const shared = pool()
    const mcp = await connect([{ name: 'stubborn', transport: 'stdio', command: process.execPath, args: [STUBBORN_ENTRY], closeTimeout: 300 }], { pool: shared })
    const pid = mcp.servers[0].pid!
    expect(shared.size).toBe(1)
    await shared.close()
    await expect.poll(() => isAlive(pid), REAPED).toBe(false)
  })

  it('a pooled process that dies is dropped, and the next connect starts a fresh one', async () => {
    const shared = pool()
    const first = await connect([counter()], { pool: shared })
    const pid = first.servers[0].pid!
    expect(await count(first)).toMatchObject({ count: 1 })
    process.kill(pid, 'SIGKILL')
    await expect.poll(() => first.servers[0].status).toBe('closed')
    expect(shared.size).toBe(0)

    const second = await connect([counter()], { pool: shared })
    expect(second.servers[0].pid).not.toBe(pid)
    expect(await count(second)).toEqual({ count: 1, pid: second.servers[0].pid })
    expect(shared.servers()).toEqual([expect.objectContaining({ pid: second.servers[0].pid, refs: 1 })])
    // The dead connection's close must not take the replacement down.
    await first.close()
    expect(await count(second)).toMatchObject({ count: 2 })
  })

  it('a failed start is not cached', async () => {
    const shared = pool()
    const marker = join(dir, 'ready')
    const config = counter({ env: { COUNTER_SPAWN_LOG: spawnLog, COUNTER_REQUIRE: marker } })
    const failed = await connect([config], { pool: shared })
    expect(failed.servers[0].status).toBe('failed')
    expect(failed.servers[0].error?.message).toContain('counter: missing')
    expect(shared.size).toBe(0)

    writeFileSync(marker, '')
    const ok = await connect([config], { pool: shared })
    expect(ok.servers[0].status).toBe('connected')
    expect(shared.size).toBe(1)
    expect(await count(ok)).toMatchObject({ count: 1 })
  })

  it('idleMs keeps a released process warm for the next connection', async () => {
    const shared = pool({ idleMs: 1500 })
    const a = await connect([counter()], { pool: shared })
    const pid = a.servers[0].pid!
    expect(await count(a)).toMatchObject({ count: 1 })
    await a.close()
    expect(shared.servers()).toEqual([expect.objectContaining({ pid, refs: 0, state: 'idle' })])

    const b = await connect([counter()], { pool: shared })
    expect(await count(b)).toEqual({ count: 2, pid })
    await b.close()
    await expect.poll(() => isAlive(pid), REAPED).toBe(false)
    expect(shared.size).toBe(0)
  })
})

describe('remote servers', () => {
  let http: TestHttpServer
  beforeEach(async () => {
    http = await startHttpMcpServer()
  })
  afterEach(async () => {
    await http.close()
  })

  it('are never pooled, while the stdio servers next to them are', async () => {
    const shared = pool()
    const configs: McpServerConfig[] = [
      { name: 'remote', transport: 'streamable-http', url: http.url, shared: true },
      counter(),
    ]
    const a = await connect(configs, { pool: shared })
    const b = await connect(configs, { pool: shared })
    expect(a.servers[0].status).toBe('connected')
    expect(b.servers[0].status).toBe('connected')
    expect(http.methods.filter(m => m === 'initialize')).toHaveLength(2)
    expect(shared.size).toBe(1)
    expect(b.servers[1].pid).toBe(a.servers[1].pid)

    await a.close()
    expect(await b.tools.mcp__remote__add.execute({ a: 2, b: 3 }, toolContext())).toBe('5')
  })
})
