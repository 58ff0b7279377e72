/* eslint-disable no-template-curly-in-string -- `${PLUGIN_ROOT}` placeholders are the config syntax under test */
import type { McpConnection } from '../../src/mcp'
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { AgentPluginError, loadAgentPlugin, PLUGIN_MCP_SCHEMA_1_0, PLUGIN_SCHEMA_1_0 } from '../../src/chat'
import { connectMcpServers, expandServerConfig } from '../../src/mcp'
import { scriptedProvider } from '../../src/testing'
import { captureWarnings, LIBRARY, scratch, skillFile, writeTree } from '../skills/support'

const require = createRequire(import.meta.url)
const EVERYTHING_ENTRY = require.resolve('@modelcontextprotocol/server-everything/dist/index.js')

const cleanups: (() => void | Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
})
function tmp(): string {
  const { dir, cleanup } = scratch('zidane-plugin-')
  cleanups.push(cleanup)
  return dir
}
const quiet = captureWarnings

/** A plugin folder: manifest, mcp.json (when given) and the skill library under skills/. */
function plugin(root: string, servers?: Record<string, unknown>, manifest: Record<string, unknown> = {}): string {
  const dir = join(root, 'reports')
  writeTree(dir, {
    'plugin.json': JSON.stringify({ $schema: PLUGIN_SCHEMA_1_0, name: 'reports', version: '1.0.0', description: 'Reports.', ...manifest }),
    // The plugin ships its server: a launcher that starts server-everything.
    'server/launch.mjs': `await import(${JSON.stringify(EVERYTHING_ENTRY)})\n`,
  })
  if (servers)
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ $schema: PLUGIN_MCP_SCHEMA_1_0, mcpServers: servers }))
  cpSync(LIBRARY, join(dir, 'skills'), { recursive: true })
  return dir
}

describe('loadAgentPlugin', () => {
  it('starts the plugin\'s stdio server with ${PLUGIN_ROOT} / ${PLUGIN_DATA} expanded in args, env values and cwd only, and brings its skills', async () => {
    quiet()
    const root = tmp()
    // An ambient variable of the same name must never reach the config (the config is preExpanded).
    vi.stubEnv('PLUGIN_ROOT', '/ambient-root')
    vi.stubEnv('OTHER', 'ambient-other')
    const dir = plugin(root, {
      everything: {
        type: 'stdio',
        command: 'node',
        args: ['${PLUGIN_ROOT}/server/launch.mjs', 'stdio'],
        env: { REPORTS_CACHE: '${PLUGIN_DATA}/cache', LITERAL: '${OTHER} and $PLUGIN_ROOT and ${PLUGIN_ROOT}${PLUGIN_DATA}' },
        cwd: '${PLUGIN_DATA}',
      },
    })
    const dataDir = join(root, 'data', 'reports')
    const loaded = await loadAgentPlugin(dir, { dataDir })
    expect(loaded.problems).toEqual([])
    expect(loaded.manifest).toMatchObject({ name: 'reports', version: '1.0.0' })
    expect(loaded.skills.map(skill => skill.name)).toEqual(['pdf-forms', 'release-notes', 'sql-review'])
    const [server] = loaded.mcpServers
    expect(server).toMatchObject({ name: 'everything', transport: 'stdio', command: 'node', preExpanded: true, cwd: loaded.dataDir, args: [`${loaded.root}/server/launch.mjs`, 'stdio'] })
    expect(server.env).toEqual({
      REPORTS_CACHE: `${loaded.dataDir}/cache`,
      LITERAL: `\${OTHER} and $PLUGIN_ROOT and ${loaded.root}${loaded.dataDir}`,
      PLUGIN_ROOT: loaded.root,
      PLUGIN_DATA: loaded.dataDir,
    })
    expect(expandServerConfig(server, { OTHER: 'x', PLUGIN_ROOT: '/elsewhere' })).toBe(server)

    const mcp: McpConnection = await connectMcpServers([...loaded.mcpServers])
    cleanups.push(() => mcp.close())
    expect(mcp.servers[0].status).toBe('connected')
    const text = await mcp.tools['mcp__everything__get-env'].execute({}, { signal: new AbortController().signal } as never) as string
    const env = JSON.parse(text.slice(text.indexOf('{'))) as Record<string, string>
    expect(env).toMatchObject({ PLUGIN_ROOT: loaded.root, PLUGIN_DATA: loaded.dataDir, REPORTS_CACHE: `${loaded.dataDir}/cache`, LITERAL: `\${OTHER} and $PLUGIN_ROOT and ${loaded.root}${loaded.dataDir}` })

    // Handed to an agent: the skills join its catalog, the server its tools.
    const provider = scriptedProvider([{ toolCalls: [{ name: 'mcp_everything_echo', input: { message: 'hi' }, id: 'e1' }] }, { text: 'done' }])
    const agent = createAgent({ provider, mcpServers: loaded.mcpServers, skills: loaded.skills })
    cleanups.push(() => agent.destroy())
    await agent.run({ prompt: 'go' })
    expect(provider.requests[0].system).toContain('- release-notes: Write release notes')
    expect(JSON.stringify(provider.requests[1].messages.at(-1))).toContain('Echo: hi')
  })

  it('never expands a placeholder in command, url or headers; remote servers get pinHeaderOrigin', async () => {
    const warnings = quiet()
    const root = tmp()
    const dir = plugin(root, {
      'remote': { type: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: { 'X-Root': '${PLUGIN_ROOT}' } },
      'legacy': { type: 'sse', url: 'http://127.0.0.1:9/sse' },
      'placeholder-command': { type: 'stdio', command: '${PLUGIN_ROOT}/bin/server' },
      'placeholder-url': { type: 'streamable-http', url: '${PLUGIN_ROOT}/mcp' },
    })
    const loaded = await loadAgentPlugin(dir, { dataDir: join(root, 'data') })
    expect(loaded.mcpServers).toEqual([
      { name: 'remote', transport: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: { 'X-Root': '${PLUGIN_ROOT}' }, pinHeaderOrigin: true, preExpanded: true },
      { name: 'legacy', transport: 'sse', url: 'http://127.0.0.1:9/sse', pinHeaderOrigin: true, preExpanded: true },
    ])
    expect(loaded.problems).toEqual([
      { component: 'server', name: 'placeholder-command', reason: expect.stringContaining('must be a bare executable name or a path starting with ./') },
      { component: 'server', name: 'placeholder-url', reason: expect.stringContaining('is not an absolute URL') },
    ])
    expect(warnings).toHaveLength(2)
  })

  it('reports each bad server entry and keeps the good ones', async () => {
    quiet()
    const root = tmp()
    const outside = tmp()
    const dir = plugin(root, {
      'good': { type: 'stdio', command: './server/launch.mjs', cwd: './server' },
      'escapes': { type: 'stdio', command: '../bin/server' },
      'relative-cwd': { type: 'stdio', command: 'node', cwd: 'server' },
      'cwd-out': { type: 'stdio', command: 'node', cwd: '${PLUGIN_ROOT}/../..' },
      'reserved-env': { type: 'stdio', command: 'node', env: { PLUGIN_DATA: '/x' } },
      'plain-http': { type: 'streamable-http', url: 'http://mcp.example.com/mcp' },
      'fragment': { type: 'streamable-http', url: 'https://mcp.example.com/mcp#x' },
      'user-info': { type: 'sse', url: 'https://me:pw@mcp.example.com/sse' },
      'twice': { type: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: { 'X-A': '1', 'x-a': '2' } },
      'mixed': { type: 'stdio', command: 'node', url: 'https://x' },
      'unknown-type': { type: 'websocket', url: 'wss://x' },
      'linked-command': { type: 'stdio', command: './server/out' },
    })
    symlinkSync(join(outside), join(dir, 'server', 'out'))
    const loaded = await loadAgentPlugin(dir, { dataDir: join(root, 'data') })
    expect(loaded.mcpServers.map(server => server.name)).toEqual(['good'])
    expect(loaded.mcpServers[0]).toMatchObject({ command: join(loaded.root, 'server/launch.mjs'), cwd: join(loaded.root, 'server') })
    const reasons = Object.fromEntries(loaded.problems.map(problem => [problem.name, problem.reason]))
    expect(reasons).toEqual({
      'escapes': expect.stringContaining('bare executable name or a path starting with ./'),
      'relative-cwd': expect.stringContaining('`cwd` must start with ./'),
      'cwd-out': expect.stringContaining('leaves the plugin root'),
      'reserved-env': expect.stringContaining('may not set PLUGIN_DATA'),
      'plain-http': expect.stringContaining('must use https'),
      'fragment': expect.stringContaining('fragment'),
      'user-info': expect.stringContaining('user information'),
      'twice': expect.stringContaining('given twice'),
      'mixed': expect.stringContaining('`url` is not part of a stdio server'),
      'unknown-type': expect.stringContaining('unknown or missing `type`'),
      'linked-command': expect.stringContaining('resolves outside the plugin root'),
    })
  })

  it('a bad mcp.json turns MCP off for the plugin but its skills still load; a bad skill is reported', async () => {
    quiet()
    const root = tmp()
    const dir = plugin(root)
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ $schema: 'https://agent-plugins.org/schemas/9.9.9/mcp.schema.json', mcpServers: {} }))
    writeTree(dir, { 'skills/Broken/SKILL.md': skillFile('name: Broken\ndescription: x') })
    const loaded = await loadAgentPlugin(dir, { dataDir: join(root, 'data') })
    expect(loaded.mcpServers).toEqual([])
    expect(loaded.skills).toHaveLength(3)
    expect(loaded.problems).toEqual([
      { component: 'mcp', path: join(loaded.root, 'mcp.json'), reason: expect.stringContaining('MCP is off for this plugin') },
      { component: 'skill', path: join(dir, 'skills', 'Broken'), name: 'Broken', reason: expect.stringContaining('lowercase') },
    ])
    writeFileSync(join(dir, 'mcp.json'), '{ not json')
    expect((await loadAgentPlugin(dir, { dataDir: join(root, 'data') })).problems[0].reason).toContain('not valid JSON')
  })

  it('rejects a plugin whose manifest breaks the specification; reports and ignores unknown fields', async () => {
    quiet()
    const root = tmp()
    const data = { dataDir: join(root, 'data') }
    await expect(loadAgentPlugin(join(root, 'missing'), data)).rejects.toThrow(AgentPluginError)
    mkdirSync(join(root, 'empty'))
    await expect(loadAgentPlugin(join(root, 'empty'), data)).rejects.toThrow(/no plugin.json/)
    const bad = (manifest: Record<string, unknown>) => loadAgentPlugin(plugin(tmp(), undefined, manifest), data)
    await expect(bad({ name: 'Bad-Name' })).rejects.toThrow(/`name`/)
    await expect(bad({ name: 'a..b' })).rejects.toThrow(/`name`/)
    await expect(bad({ $schema: 'https://agent-plugins.org/schemas/2.0.0/plugin.schema.json' })).rejects.toThrow(/unsupported `\$schema`/)
    await expect(bad({ author: { name: 'x', phone: '1' } })).rejects.toThrow(/`author`/)
    await expect(bad({ keywords: 'a' })).rejects.toThrow(/`keywords`/)
    const loaded = await bad({ name: 'acme.tools', commands: './commands', extensions: 'nope' })
    expect(loaded.manifest.name).toBe('acme.tools')
    expect(loaded.manifest).not.toHaveProperty('commands')
    expect(loaded.problems).toEqual([
      { component: 'manifest', path: join(loaded.root, 'plugin.json'), reason: 'unknown field `commands` ignored' },
      { component: 'manifest', path: join(loaded.root, 'plugin.json'), reason: '`extensions` is not an object; ignored' },
    ])
    await expect(loadAgentPlugin(loaded.root, {} as never)).rejects.toThrow(/dataDir/)
  })
})
