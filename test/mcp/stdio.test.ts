/* eslint-disable no-template-curly-in-string -- `${VAR}` placeholders are the config syntax under test */
import type { McpConnection } from '../../src/mcp'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { connectMcpServers } from '../../src/mcp'
import { EVERYTHING_ENTRY, FILESYSTEM_ENTRY, isAlive, toolContext } from './support'

const STUBBORN_ENTRY = fileURLToPath(new URL('./fixtures/stubborn-server.mjs', import.meta.url))
const open: McpConnection[] = []

afterEach(async () => {
  await Promise.all(open.splice(0).map(c => c.close()))
})

async function connect(...args: Parameters<typeof connectMcpServers>) {
  const connection = await connectMcpServers(...args)
  open.push(connection)
  return connection
}

describe('a server whose tool schema nests thousands of levels', () => {
  it('leaves that tool out, reports it, and keeps the others', async () => {
    const errors: [string, Error][] = []
    const mcp = await connect([{
      name: 'deep',
      transport: 'stdio',
      command: process.execPath,
      args: [fileURLToPath(new URL('./fixtures/deep-schema-server.mjs', import.meta.url))],
    }], { onServerError: (server, error) => errors.push([server, error]) })
    expect(mcp.servers[0].status).toBe('connected')
    expect(Object.keys(mcp.tools)).toEqual(['mcp__deep__plain'])
    expect(mcp.servers[0].tools).toEqual(['plain'])
    expect(errors).toHaveLength(1)
    expect(errors[0][0]).toBe('deep')
    expect(errors[0][1]).toBeInstanceOf(TypeError)
    expect(errors[0][1].message).toBe('MCP server "deep": the input schema of tool "deep" nests more than 200 levels deep; the tool is left out')
    expect(await mcp.tools.mcp__deep__plain.execute({}, toolContext())).toBe('ok from plain')
  })
})

describe('server-everything over stdio', () => {
  it('connects, calls tools, passes expanded env, and reaps the child on close', async () => {
    const mcp = await connect([{
      name: 'everything',
      transport: 'stdio',
      command: process.execPath,
      args: ['${ENTRY}', 'stdio'],
      env: { ZIDANE_PROBE: '${PROBE:-fallback}-${env:SUFFIX}' },
      enabledTools: ['echo', 'get-env', 'get-tiny-image', 'get-sum'],
    }], { env: { ENTRY: EVERYTHING_ENTRY, SUFFIX: 'x' } })
    const [info] = mcp.servers
    expect(info.status).toBe('connected')
    expect(info.instructions).toMatch(/Everything Server/)
    expect(Object.keys(mcp.tools).sort()).toEqual(['mcp__everything__echo', 'mcp__everything__get-env', 'mcp__everything__get-sum', 'mcp__everything__get-tiny-image'])
    expect(mcp.aliases['mcp__everything__get-sum']).toBe('mcp_everything_get-sum')

    const ctx = toolContext()
    expect(await mcp.tools.mcp__everything__echo.execute({ message: 'hi' }, ctx)).toBe('Echo: hi')
    const envText = await mcp.tools['mcp__everything__get-env'].execute({}, ctx) as string
    expect(envText).toContain('fallback-x')
    // Merged over the SDK's default environment: PATH is still there.
    expect(envText).toContain('PATH')
    const image = await mcp.tools['mcp__everything__get-tiny-image'].execute({}, ctx)
    expect(Array.isArray(image) && image.some(b => b.type === 'image' && b.mediaType === 'image/png')).toBe(true)

    const pid = info.pid!
    expect(isAlive(pid)).toBe(true)
    await mcp.close()
    expect(info.status).toBe('closed')
    await expect.poll(() => isAlive(pid)).toBe(false)
  })

  it('passes env verbatim with strictEnv', async () => {
    const mcp = await connect([{
      name: 'strict',
      transport: 'stdio',
      command: process.execPath,
      args: [EVERYTHING_ENTRY, 'stdio'],
      env: { ONLY_THIS: '1' },
      strictEnv: true,
      enabledTools: ['get-env'],
    }])
    const text = await mcp.tools['mcp__strict__get-env'].execute({}, toolContext()) as string
    const env = JSON.parse(text.slice(text.indexOf('{')))
    expect(env.ONLY_THIS).toBe('1')
    expect(env.PATH).toBeUndefined()
  })
})

describe('server-filesystem over stdio', () => {
  let root: string
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'zidane-mcp-'))
    writeFileSync(join(root, 'note.txt'), 'hello from disk')
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('reads a file under its root, with a deny list', async () => {
    const mcp = await connect([{
      name: 'fs',
      transport: 'stdio',
      command: process.execPath,
      args: [FILESYSTEM_ENTRY, root],
      disabledTools: ['write_file', 'edit_file'],
    }])
    expect(mcp.tools.mcp__fs__write_file).toBeUndefined()
    const read = mcp.tools.mcp__fs__read_text_file ?? mcp.tools.mcp__fs__read_file
    expect(await read.execute({ path: join(root, 'note.txt') }, toolContext())).toContain('hello from disk')
  })
})

describe('stdio close', () => {
  it('sIGKILLs a child whose close hangs past closeTimeout', async () => {
    const mcp = await connect([{ name: 'stubborn', transport: 'stdio', command: process.execPath, args: [STUBBORN_ENTRY], closeTimeout: 300 }])
    expect(await mcp.tools.mcp__stubborn__ping.execute({}, toolContext())).toBe('pong')
    const pid = mcp.servers[0].pid!
    const started = Date.now()
    await mcp.close()
    expect(Date.now() - started).toBeLessThan(1500)
    await expect.poll(() => isAlive(pid)).toBe(false)
  })

  it('reports a child that exits at once as failed, with its stderr', async () => {
    const mcp = await connect([{ name: 'broken', transport: 'stdio', command: process.execPath, args: ['-e', 'console.error("no luck here"); process.exit(3)'] }])
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error?.message).toContain('no luck here')
    expect(mcp.tools).toEqual({})
  })

  it('keeps a character whose bytes arrive in two stderr chunks whole', async () => {
    const script = 'const b = Buffer.from(\'broken \\u{1F600} here\'); process.stderr.write(b.subarray(0, 9), () => setTimeout(() => process.stderr.write(b.subarray(9), () => process.exit(3)), 50))'
    const mcp = await connect([{ name: 'split', transport: 'stdio', command: process.execPath, args: ['-e', script] }])
    expect(mcp.servers[0].status).toBe('failed')
    expect(mcp.servers[0].error?.message).toContain('broken \u{1F600} here')
    expect(mcp.servers[0].error?.message).not.toContain('\uFFFD')
  })
})
