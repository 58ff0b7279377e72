import type { ExecutionContext } from '../../src/contexts/types'
import type { McpConnection, McpServerConfig } from '../../src/mcp'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createProcessContext } from '../../src/contexts/process'
import { connectMcpServers } from '../../src/mcp'
import { EVERYTHING_ENTRY, isAlive, toolContext } from './support'
import { startMcpHttpApp } from './transport-support'

const PROBE_ENTRY = fileURLToPath(new URL('./fixtures/probe-server.mjs', import.meta.url))

interface Probe {
  pid: number
  cwd: string
  env: Record<string, string>
  argv: string[]
}

let root: string
const open: McpConnection[] = []
const contexts: ExecutionContext[] = []

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'zidane-mcp-context-')))
  mkdirSync(join(root, 'sub'))
})
afterEach(async () => {
  await Promise.all(open.splice(0).map(c => c.close()))
  await Promise.all(contexts.splice(0).map(c => c.destroy()))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

function context(options: Parameters<typeof createProcessContext>[0] = {}) {
  const ctx = createProcessContext({ cwd: root, env: { ZIDANE_CTX: 'from-context', ZIDANE_SHARED: 'context' }, ...options })
  contexts.push(ctx)
  return ctx
}

async function connect(...args: Parameters<typeof connectMcpServers>) {
  const connection = await connectMcpServers(...args)
  open.push(connection)
  return connection
}

function probe(extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name: 'probe', transport: 'stdio', scope: 'context', command: process.execPath, args: [PROBE_ENTRY], ...extra }
}

async function runProbe(mcp: McpConnection): Promise<Probe> {
  return JSON.parse(await mcp.tools.mcp__probe__probe.execute({}, toolContext()) as string) as Probe
}

describe('scope: \'context\' stdio servers', () => {
  it('runs server-everything through the context: lists and calls tools, in the context\'s environment', async () => {
    const execution = context()
    const execStream = vi.spyOn(execution, 'execStream')
    const mcp = await connect([{
      name: 'everything',
      transport: 'stdio',
      scope: 'context',
      command: process.execPath,
      args: [EVERYTHING_ENTRY, 'stdio'],
      env: { ZIDANE_CFG: 'from-config' },
      enabledTools: ['echo', 'get-env'],
    }], { execution })
    const [info] = mcp.servers
    expect(info.status).toBe('connected')
    expect(execStream).toHaveBeenCalledTimes(1)
    expect(Object.keys(mcp.tools).sort()).toEqual(['mcp__everything__echo', 'mcp__everything__get-env'])
    expect(await mcp.tools.mcp__everything__echo.execute({ message: 'inside' }, toolContext())).toBe('Echo: inside')
    const envText = await mcp.tools['mcp__everything__get-env'].execute({}, toolContext()) as string
    // ZIDANE_CTX exists only in the context's environment: the SDK's host default whitelist would not have it.
    expect(envText).toContain('from-context')
    expect(envText).toContain('from-config')
    // Host-only diagnostics: a context pid may live in another namespace.
    expect(info.pid).toBeUndefined()
  })

  it('merges env over the context\'s environment, and passes exactly env with strictEnv', async () => {
    const execution = context()
    const mcp = await connect([
      probe({ env: { ZIDANE_CFG: 'from-config', ZIDANE_SHARED: 'config' } }),
      probe({ name: 'strict', env: { ONLY_THIS: 'yes', WITH_SPACE: 'a b \'c\' $HOME' }, strictEnv: true }),
    ], { execution })
    expect(mcp.servers.map(s => s.status)).toEqual(['connected', 'connected'])

    const merged = await runProbe(mcp)
    expect(merged.env.ZIDANE_CTX).toBe('from-context')
    expect(merged.env.ZIDANE_CFG).toBe('from-config')
    expect(merged.env.ZIDANE_SHARED).toBe('config')
    expect(merged.env.PATH).toBeDefined()

    const strict = JSON.parse(await mcp.tools.mcp__strict__probe.execute({}, toolContext()) as string) as Probe
    expect(strict.env).toEqual({ ONLY_THIS: 'yes', WITH_SPACE: 'a b \'c\' $HOME' })
  })

  it('honors cwd (relative to the context\'s cwd) and passes arguments verbatim', async () => {
    const execution = context()
    const tricky = ['two words', 'it\'s', '$HOME', '"quoted"', '; echo pwned', '*', '']
    const mcp = await connect([probe({ cwd: 'sub', args: [PROBE_ENTRY, ...tricky] })], { execution })
    const result = await runProbe(mcp)
    expect(result.cwd).toBe(join(root, 'sub'))
    expect(result.argv).toEqual(tricky)
  })

  it('close() leaves no process behind', async () => {
    const mcp = await connect([probe()], { execution: context() })
    const { pid } = await runProbe(mcp)
    expect(isAlive(pid)).toBe(true)
    await mcp.close()
    expect(mcp.servers[0].status).toBe('closed')
    await expect.poll(() => isAlive(pid)).toBe(false)
  })

  it('sends SIGKILL to a server whose close hangs past closeTimeout, through the context', async () => {
    // The context would wait a minute between SIGTERM and SIGKILL: only the closeTimeout kill ends it quickly.
    const execution = context({ killGraceMs: 60_000 })
    const mcp = await connect([probe({ args: [PROBE_ENTRY, '--stubborn'], closeTimeout: 300 })], { execution })
    const { pid } = await runProbe(mcp)
    await mcp.close()
    await expect.poll(() => isAlive(pid), { timeout: 3000 }).toBe(false)
  })

  it('fails at bootstrap without an execution context, or with one that cannot stream', async () => {
    const errors: string[] = []
    const mcp = await connect([probe()], { onServerError: name => errors.push(name) })
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error?.message).toMatch(/scope 'context' but no execution context/)
    expect(errors).toEqual(['probe'])

    const base = context()
    const execStream = vi.fn(base.execStream)
    const limited: ExecutionContext = { ...base, capabilities: { ...base.capabilities, execStream: false }, execStream }
    const refused = await connect([probe()], { execution: limited })
    expect(refused.servers[0].status).toBe('failed')
    expect(refused.servers[0].error?.message).toMatch(/cannot stream.*execStream is false/)
    expect(execStream).not.toHaveBeenCalled()
  })

  it('reports a missing binary as a failed server, with the stderr tail', async () => {
    const mcp = await connect([probe({ command: '/nonexistent/zidane-no-such-server', args: [] })], { execution: context() })
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error?.message).toMatch(/server stderr:[\s\S]*zidane-no-such-server/)
    expect(mcp.tools).toEqual({})
  })

  it('keeps a character whose bytes arrive in two stderr chunks whole', async () => {
    const script = 'const b = Buffer.from(\'broken \\u{1F600} here\'); process.stderr.write(b.subarray(0, 9), () => setTimeout(() => process.stderr.write(b.subarray(9), () => process.exit(3)), 50))'
    const mcp = await connect([probe({ args: ['-e', script] })], { execution: context() })
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error?.message).toContain('broken \u{1F600} here')
    expect(mcp.servers[0].error?.message).not.toContain('\uFFFD')
  })

  it('is ignored for HTTP transports', async () => {
    const app = await startMcpHttpApp()
    try {
      const mcp = await connect([{ name: 'remote', transport: 'streamable-http', url: `${app.origin}/mcp`, scope: 'context' }])
      expect(mcp.servers[0].status).toBe('connected')
      expect(await mcp.tools.mcp__remote__echo.execute({ message: 'x' }, toolContext())).toBe('echo: x')
    }
    finally {
      await Promise.all(open.splice(0).map(c => c.close()))
      await app.close()
    }
  })
})
