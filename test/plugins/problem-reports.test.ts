import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { loadAgentPlugin, PLUGIN_MCP_SCHEMA_1_0, PLUGIN_SCHEMA_1_0 } from '../../src/chat'
import { captureWarnings, scratch } from '../skills/support'

// What a plugin's problems say is built from the plugin's own text: it stays short and printable.

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
  vi.restoreAllMocks()
})
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x1F\x7F-\x9F\u2028\u2029]/
const ESCAPES = '\u001B]0;owned\u0007\u001B[2J'

/** A plugin folder with `plugin.json` and, when given, `mcp.json`. */
function plugin(manifest: Record<string, unknown>, mcp?: Record<string, unknown>): { dir: string, dataDir: string } {
  const { dir: root, cleanup } = scratch('zidane-plugin-problems-')
  cleanups.push(cleanup)
  const dir = join(root, 'reports')
  mkdirSync(dir)
  writeFileSync(join(dir, 'plugin.json'), JSON.stringify({ $schema: PLUGIN_SCHEMA_1_0, name: 'reports', ...manifest }))
  if (mcp)
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ $schema: PLUGIN_MCP_SCHEMA_1_0, ...mcp }))
  return { dir, dataDir: join(root, 'data') }
}

describe('plugin problems', () => {
  it('90,000 unknown manifest fields are one problem naming five, and one warning', async () => {
    const warnings = captureWarnings()
    // Short names (base 36), so the manifest stays under the 1 MiB a plugin.json may have.
    const fields = Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`f${i.toString(36)}${'x'.repeat(i === 0 ? 100 : 0)}`, 0]))
    const { dir, dataDir } = plugin(fields)
    const loaded = await loadAgentPlugin(dir, { dataDir })
    expect(loaded.problems).toEqual([{
      component: 'manifest',
      path: join(loaded.root, 'plugin.json'),
      reason: `90,000 unknown fields \`f0${'x'.repeat(61)}…\`, \`f1\`, \`f2\`, \`f3\`, \`f4\` and 89,995 more ignored`,
    }])
    expect(warnings).toHaveLength(1)
  })

  it('one unknown manifest field reads as before', async () => {
    captureWarnings()
    const { dir, dataDir } = plugin({ commands: [] })
    expect((await loadAgentPlugin(dir, { dataDir })).problems.map(problem => problem.reason)).toEqual(['unknown field `commands` ignored'])
  })

  it('a server of 70,000 unknown fields is one short reason; so are mcp.json\'s own extra fields', async () => {
    captureWarnings()
    const extra = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`o${i.toString(36)}`, 0]))
    const server = plugin({}, { mcpServers: { srv: { type: 'stdio', command: 'node', ...extra } } })
    const [problem] = (await loadAgentPlugin(server.dir, { dataDir: server.dataDir })).problems
    expect(problem).toEqual({ component: 'server', name: 'srv', reason: '70,000 fields `o0`, `o1`, `o2`, `o3`, `o4` and 69,995 more are not part of a stdio server' })
    const top = plugin({}, { mcpServers: {}, ...extra })
    const [off] = (await loadAgentPlugin(top.dir, { dataDir: top.dataDir })).problems
    expect(off.reason).toBe('mcp.json has fields beyond $schema and mcpServers: `o0`, `o1`, `o2`, `o3`, `o4` and 69,995 more; MCP is off for this plugin')
  })

  it('reasons, names and paths carry no raw control character, as the warnings do not', async () => {
    const warnings = captureWarnings()
    const { dir, dataDir } = plugin(
      { [`note${ESCAPES}`]: 1 },
      { mcpServers: { srv: { type: 'stdio', command: 'node', [`opt${ESCAPES}`]: 1 } } },
    )
    const loaded = await loadAgentPlugin(dir, { dataDir })
    expect(loaded.problems.map(problem => problem.component)).toEqual(['manifest', 'server'])
    for (const problem of loaded.problems) {
      expect(problem.reason).not.toMatch(RAW_CONTROL)
      expect(problem.name ?? '').not.toMatch(RAW_CONTROL)
      expect(problem.path ?? '').not.toMatch(RAW_CONTROL)
    }
    expect(loaded.problems[0].reason).toBe('unknown field `note\\u001b]0;owned\\u0007\\u001b[2J` ignored')
    expect(loaded.problems[1].reason).toBe('field `opt\\u001b]0;owned\\u0007\\u001b[2J` is not part of a stdio server')
    expect(warnings).toHaveLength(2)
    for (const warning of warnings)
      expect(warning).not.toMatch(RAW_CONTROL)
  })
})
