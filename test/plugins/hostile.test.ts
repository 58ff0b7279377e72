/* eslint-disable no-template-curly-in-string -- `${PLUGIN_ROOT}` placeholders are the config syntax under test */
import { execFileSync } from 'node:child_process'
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { AgentPluginError, loadAgentPlugin, MAX_PLUGIN_SERVERS, PLUGIN_MCP_SCHEMA_1_0, PLUGIN_SCHEMA_1_0 } from '../../src/chat'
import { scriptedProvider } from '../../src/testing'
import { captureWarnings, scratch, skillFile, within, writeTree } from '../skills/support'

/**
 * A plugin folder from an untrusted marketplace: its manifest, `mcp.json` and
 * skills may not hang the load, crash the host or reach a terminal raw.
 */

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
  vi.restoreAllMocks()
})
function tmp(): string {
  const { dir, cleanup } = scratch('zidane-hostile-plugin-')
  cleanups.push(cleanup)
  return dir
}
const quiet = captureWarnings
const MANIFEST = JSON.stringify({ $schema: PLUGIN_SCHEMA_1_0, name: 'hostile' })
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x1F\x7F-\x9F\u2028\u2029]/

/** A plugin folder with `plugin.json` (unless `manifest` is null) and `mcp.json` (when given), as text. */
function plugin(manifest: string | null = MANIFEST, mcp?: string): { dir: string, dataDir: string } {
  const root = tmp()
  const dir = join(root, 'hostile')
  mkdirSync(dir)
  if (manifest !== null)
    writeFileSync(join(dir, 'plugin.json'), manifest)
  if (mcp !== undefined)
    writeFileSync(join(dir, 'mcp.json'), mcp)
  return { dir, dataDir: join(root, 'data') }
}
const servers = (entries: Record<string, unknown>) => JSON.stringify({ $schema: PLUGIN_MCP_SCHEMA_1_0, mcpServers: entries })

describe('the manifest', () => {
  it('a FIFO named plugin.json is refused at once: AgentPluginError, never opened', async () => {
    const { dir, dataDir } = plugin(null)
    execFileSync('mkfifo', [join(dir, 'plugin.json')])
    // Before, the open waited for a writer for ever, holding one of libuv's threads.
    await expect(within(5000, loadAgentPlugin(dir, { dataDir }))).rejects.toThrow(new AgentPluginError(dir, 'plugin.json is not a regular file (a FIFO, a device, a socket, a directory or a dangling link)'))
  })

  it('a plugin.json that links out of the plugin is refused, and its text is never read', async () => {
    const outside = tmp()
    writeFileSync(join(outside, 'theirs.json'), JSON.stringify({ $schema: PLUGIN_SCHEMA_1_0, name: 'someone-else' }))
    const { dir, dataDir } = plugin(null)
    symlinkSync(join(outside, 'theirs.json'), join(dir, 'plugin.json'))
    await expect(loadAgentPlugin(dir, { dataDir })).rejects.toThrow(new AgentPluginError(dir, 'plugin.json resolves outside the plugin root'))
    // Before, a link to /etc/passwd put its first characters in the error ("root:x:0:0"... is not valid JSON).
    const other = plugin(null)
    symlinkSync('/etc/passwd', join(other.dir, 'plugin.json'))
    await expect(loadAgentPlugin(other.dir, { dataDir: other.dataDir })).rejects.toThrow(/resolves outside the plugin root$/)
  })

  it('a plugin.json of gigabytes (sparse) is refused from its size', async () => {
    const { dir, dataDir } = plugin()
    truncateSync(join(dir, 'plugin.json'), 4 * 2 ** 30)
    await expect(loadAgentPlugin(dir, { dataDir })).rejects.toThrow(/plugin.json: larger than 1048576 bytes/)
  })

  it('a manifest nested past 100 levels is refused (its `extensions` would reach the host as it is)', async () => {
    const deep = `${'['.repeat(400_000)}${']'.repeat(400_000)}`
    const { dir, dataDir } = plugin(`{"$schema":"${PLUGIN_SCHEMA_1_0}","name":"hostile","extensions":{"com.example":${deep}}}`)
    // Before, it loaded, and the host's first JSON.stringify of the manifest overflowed the stack.
    await expect(loadAgentPlugin(dir, { dataDir })).rejects.toThrow(/plugin.json: nested more than 100 levels deep/)
  })

  it('`__proto__` keys change no prototype', async () => {
    quiet()
    const { dir, dataDir } = plugin(
      `{"$schema":"${PLUGIN_SCHEMA_1_0}","name":"hostile","__proto__":{"polluted":true},"extensions":{"__proto__":{"polluted":true}}}`,
      `{"$schema":"${PLUGIN_MCP_SCHEMA_1_0}","mcpServers":{"__proto__":{"type":"stdio","command":"node","env":{"__proto__":"x"}}}}`,
    )
    const loaded = await loadAgentPlugin(dir, { dataDir })
    expect(Object.getPrototypeOf(loaded.manifest)).toBe(Object.prototype)
    expect((loaded.manifest as unknown as Record<string, unknown>).polluted).toBeUndefined()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(loaded.problems).toEqual([{ component: 'manifest', path: join(loaded.root, 'plugin.json'), reason: 'unknown field `__proto__` ignored' }])
    const [server] = loaded.mcpServers
    expect(server.name).toBe('__proto__')
    expect(Object.getPrototypeOf(server.env)).toBe(Object.prototype)
    expect(Object.hasOwn(server.env!, '__proto__')).toBe(true)
  })
})

describe('mcp.json', () => {
  it('a FIFO, a sparse file of gigabytes, JSON nested past 100 levels: MCP is off, the rest loads', async () => {
    const warnings = quiet()
    const fifo = plugin()
    execFileSync('mkfifo', [join(fifo.dir, 'mcp.json')])
    expect((await within(5000, loadAgentPlugin(fifo.dir, fifo))).problems).toEqual([expect.objectContaining({ component: 'mcp', reason: 'mcp.json is not a regular file; MCP is off for this plugin' })])
    const big = plugin(MANIFEST, '')
    truncateSync(join(big.dir, 'mcp.json'), 4 * 2 ** 30)
    expect((await loadAgentPlugin(big.dir, big)).problems).toEqual([expect.objectContaining({ reason: 'mcp.json: larger than 1048576 bytes; MCP is off for this plugin' })])
    const deep = plugin(MANIFEST, `{"$schema":"${PLUGIN_MCP_SCHEMA_1_0}","mcpServers":{"a":{"type":"stdio","command":"node","args":${'['.repeat(200_000)}${']'.repeat(200_000)}}}}`)
    expect((await loadAgentPlugin(deep.dir, deep)).problems).toEqual([expect.objectContaining({ reason: 'mcp.json: nested more than 100 levels deep; MCP is off for this plugin' })])
    expect(warnings).toHaveLength(3)
  })

  it('tens of thousands of server entries: the first hundred read, the rest reported once', async () => {
    const warnings = quiet()
    // As many as fit in 1 MiB: the first hundred real, the rest as short as an entry gets.
    const entries = Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`s${i}`, i < 100 ? { type: 'stdio', command: 'node' } : 0]))
    const { dir, dataDir } = plugin(MANIFEST, servers(entries))
    const loaded = await loadAgentPlugin(dir, { dataDir })
    expect(loaded.mcpServers).toHaveLength(MAX_PLUGIN_SERVERS)
    // Before, one problem and one process warning per entry: 79,900 of each.
    expect(loaded.problems).toEqual([{ component: 'server', reason: 'mcp.json declares 80000 servers; the 79900 after the first 100 were not read' }])
    expect(warnings).toHaveLength(1)
  })

  it('server names and env names a process or a terminal cannot take are refused, never echoed raw', async () => {
    const warnings = quiet()
    const { dir, dataDir } = plugin(MANIFEST, servers({
      'good': { type: 'stdio', command: 'node', args: ['a'] },
      '\u001B[2J\u001B]0;owned\u0007': { type: 'stdio', command: 'node' },
      'line\nbreak': { type: 'stdio', command: 'node' },
      '': { type: 'stdio', command: 'node' },
      'half\uD800': { type: 'stdio', command: 'node' },
      [`long-${'n'.repeat(200)}`]: { type: 'stdio', command: 'node' },
      'nul-arg': { type: 'stdio', command: 'node', args: ['a\u0000b'] },
      'nul-env': { type: 'stdio', command: 'node', env: { A: 'x\u0000' } },
      'eq-env': { type: 'stdio', command: 'node', env: { 'A=B': 'x' } },
      'empty-env': { type: 'stdio', command: 'node', env: { '': 'x' } },
    }))
    const loaded = await loadAgentPlugin(dir, { dataDir })
    expect(loaded.mcpServers.map(server => server.name)).toEqual(['good'])
    expect(loaded.problems.map(problem => [problem.name, problem.reason])).toEqual([
      ['\\u001b[2J\\u001b]0;owned\\u0007', 'a server name must be 1–128 characters without control characters'],
      ['line\\u000abreak', 'a server name must be 1–128 characters without control characters'],
      ['', 'a server name must be 1–128 characters without control characters'],
      ['half\\ud800', 'a server name must be 1–128 characters without control characters'],
      [`long-${'n'.repeat(123)}`, 'a server name must be 1–128 characters without control characters'],
      ['nul-arg', '`command`, `args`, `env` values and `cwd` may not contain NUL'],
      ['nul-env', '`command`, `args`, `env` values and `cwd` may not contain NUL'],
      ['eq-env', '`env` name "A=B" is not a variable name (empty, or with = or NUL)'],
      ['empty-env', '`env` name "" is not a variable name (empty, or with = or NUL)'],
    ])
    expect(warnings).toHaveLength(9)
    expect(warnings.join('')).not.toMatch(RAW_CONTROL)
    expect((warnings.join('') as unknown as { isWellFormed: () => boolean }).isWellFormed()).toBe(true)
  })

  it('two server names that collide once made safe for tool names: the second is left out, so the agent still runs', async () => {
    quiet()
    const { dir, dataDir } = plugin(MANIFEST, servers({ 'x.y': { type: 'stdio', command: 'true' }, 'x_y': { type: 'stdio', command: 'true' }, 'x y': { type: 'stdio', command: 'true' } }))
    const loaded = await loadAgentPlugin(dir, { dataDir })
    expect(loaded.mcpServers.map(server => server.name)).toEqual(['x.y'])
    expect(loaded.problems).toEqual([
      { component: 'server', name: 'x_y', reason: 'the name collides with server "x.y" once both are made safe for tool names ("x_y")' },
      { component: 'server', name: 'x y', reason: 'the name collides with server "x.y" once both are made safe for tool names ("x_y")' },
    ])
    // Before, both were kept, and every run threw: MCP server name "x_y" is used twice.
    const agent = createAgent({ provider: scriptedProvider([{ text: 'done' }]), mcpServers: loaded.mcpServers })
    cleanups.push(() => void agent.destroy())
    expect((await agent.run({ prompt: 'hi' })).stopReason).toBe('completed')
  })

  it('commands, working directories and links that leave the plugin are refused', async () => {
    quiet()
    const outside = tmp()
    writeFileSync(join(outside, 'tool'), '#!/bin/sh\n')
    const { dir, dataDir } = plugin(MANIFEST, servers({
      'dot-dot': { type: 'stdio', command: './../tool' },
      'abs': { type: 'stdio', command: '/bin/sh' },
      'link': { type: 'stdio', command: './bin/tool' },
      'cwd-up': { type: 'stdio', command: 'node', cwd: './..' },
      'cwd-data-up': { type: 'stdio', command: 'node', cwd: '${PLUGIN_DATA}/../..' },
      'cwd-link': { type: 'stdio', command: 'node', cwd: './away' },
    }))
    writeFileSync(join(dir, '..', 'tool'), '#!/bin/sh\n')
    mkdirSync(join(dir, 'bin'))
    symlinkSync(join(outside, 'tool'), join(dir, 'bin', 'tool'))
    symlinkSync(outside, join(dir, 'away'))
    const loaded = await loadAgentPlugin(dir, { dataDir })
    expect(loaded.mcpServers).toEqual([])
    expect(Object.fromEntries(loaded.problems.map(problem => [problem.name, problem.reason]))).toEqual({
      'dot-dot': '`command` ./../tool resolves outside the plugin root',
      'abs': '`command` "/bin/sh" must be a bare executable name or a path starting with ./',
      'link': '`command` ./bin/tool resolves outside the plugin root',
      'cwd-up': '`cwd` ./.. leaves the plugin root',
      'cwd-data-up': '`cwd` ${PLUGIN_DATA}/../.. leaves the plugin data directory',
      'cwd-link': '`cwd` ./away leaves the plugin root',
    })
  })

  it('placeholders expand once, in one pass: the result grows with the file, never with what a value expands to', async () => {
    quiet()
    const count = 50_000
    const { dir, dataDir } = plugin(MANIFEST, servers({
      big: { type: 'stdio', command: 'node', args: ['${PLUGIN_ROOT}'.repeat(count)], env: { NESTED: '${PLUGIN_$' + '{PLUGIN_ROOT}}', HOME_REF: '${HOME}' } },
    }))
    const loaded = await loadAgentPlugin(dir, { dataDir })
    const [server] = loaded.mcpServers
    expect(server.args![0]).toHaveLength(count * loaded.root.length)
    expect(server.env).toMatchObject({ NESTED: `\${PLUGIN_${loaded.root}}`, HOME_REF: '${HOME}' })
  })
})

describe('skills of a plugin', () => {
  it('a hostile skill is reported without its raw name; a folder report (too many skills, odd names) is not dropped', async () => {
    const warnings = quiet()
    const { dir, dataDir } = plugin()
    writeTree(dir, {
      'skills/owned/SKILL.md': skillFile('name: "\\u001b]0;owned\\u0007"\ndescription: x'),
      'skills/\u001B[2Jbad/SKILL.md': skillFile('name: bad\ndescription: x'),
      'skills/fine/SKILL.md': skillFile('name: fine\ndescription: Fine.'),
    })
    const loaded = await loadAgentPlugin(dir, { dataDir })
    expect(loaded.skills.map(skill => skill.name)).toEqual(['fine'])
    expect(loaded.problems).toEqual([
      { component: 'skill', path: join(dir, 'skills'), reason: '1 subdirectory has a name with control characters or bytes that are not UTF-8, which no skill can have; not read' },
      { component: 'skill', path: join(dir, 'skills', 'owned'), reason: expect.stringContaining('`name` "\\u001b]0;owned\\u0007" must be lowercase') },
    ])
    expect(warnings).toHaveLength(2)
    expect(warnings.join(' ')).not.toMatch(RAW_CONTROL)
  })
})
