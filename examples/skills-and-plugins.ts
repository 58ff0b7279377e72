/**
 * Skills and Agent Plugins: a plugin folder with a skill and an MCP server,
 * loaded with `loadAgentPlugin` and handed to an agent.
 *
 *   node --import tsx examples/skills-and-plugins.ts
 *
 * The example writes a small plugin to a temporary folder: `plugin.json`,
 * `mcp.json` (the official filesystem MCP server over stdio, rooted in the
 * plugin's data directory through `${PLUGIN_DATA}`), and a `release-notes`
 * skill with a template under `assets/`. The model sees the skill in the
 * `skills` prompt section, activates it with `skills_use` (`skills:activate`
 * prints why), reads the template with `skills_read`, and writes the notes
 * with the server's tool. The skill's `allowed-tools` is enforced while it
 * is active: a call outside it comes back `Blocked: …`.
 *
 * With ANTHROPIC_API_KEY set, Claude chooses the calls. Without it, a
 * scripted model makes them; the plugin, the skill files and the MCP server
 * are real either way.
 */
/* eslint-disable no-template-curly-in-string -- `${PLUGIN_DATA}` is the plugin's placeholder syntax */
import type { Provider, StreamOptions } from 'zidane'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from 'zidane'
import { loadAgentPlugin } from 'zidane/chat'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'

const serverEntry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js')
const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted; the plugin, skill and MCP server are real.\n')

const workspace = mkdtempSync(join(tmpdir(), 'zidane-plugin-example-'))
const pluginDir = join(workspace, 'release-tools')
writePlugin(pluginDir)

try {
  const plugin = await loadAgentPlugin(pluginDir, { dataDir: join(workspace, 'data', 'release-tools') })
  console.log(`plugin ${plugin.manifest.name} ${plugin.manifest.version}: ${plugin.skills.length} skill(s), ${plugin.mcpServers.length} MCP server(s), ${plugin.problems.length} problem(s)`)
  console.log(`the server runs as: ${plugin.mcpServers[0].command} … ${plugin.mcpServers[0].args?.at(-1)}\n`)

  const agent = createAgent({
    provider: live ? anthropic() : offlineModel(plugin.dataDir),
    system: 'You are a release assistant. Be brief.',
    mcpServers: plugin.mcpServers,
    skills: plugin.skills,
    behavior: { maxTurns: 8 },
  })
  agent.hooks.hook('skills:activate', ({ name, reason, rationale, allowedTools }) => {
    console.log(`skill ${name} activated (${reason}${rationale ? `: ${rationale}` : ''}); allowed tools: ${allowedTools?.join(', ') ?? 'any'}`)
  })
  agent.hooks.hook('tool:after', ({ name, result, isError }) => {
    const text = typeof result === 'string' ? result : JSON.stringify(result)
    console.log(`${isError ? '✗' : '✓'} ${name}: ${text.split('\n')[0].slice(0, 120)}`)
  })
  agent.hooks.hook('skills:deactivate', ({ name, stopReason }) => {
    console.log(`skill ${name} deactivated at run end (${stopReason})`)
  })
  try {
    const stats = await agent.run({ prompt: `Write release notes for v1.2.0 to ${join(plugin.dataDir, 'NOTES.md')}: we added a --dry-run flag (#12) and fixed a crash on empty config files (#15).` })
    console.log(`\nanswer: ${stats.text}\nstop: ${stats.stopReason} · turns: ${stats.turns}`)
    console.log(`\nNOTES.md:\n${readFileSync(join(plugin.dataDir, 'NOTES.md'), 'utf8')}`)
  }
  finally {
    await agent.destroy()
  }
}
finally {
  rmSync(workspace, { recursive: true, force: true })
}

/** A plugin in the Agent Plugins 1.0.0 layout. */
function writePlugin(dir: string): void {
  mkdirSync(join(dir, 'skills', 'release-notes', 'assets'), { recursive: true })
  writeFileSync(join(dir, 'plugin.json'), JSON.stringify({
    $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
    name: 'release-tools',
    version: '0.3.0',
    description: 'Release notes, written from a template into the plugin\'s data folder.',
  }, null, 2))
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({
    $schema: 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json',
    mcpServers: { files: { type: 'stdio', command: 'node', args: [serverEntry, '${PLUGIN_DATA}'] } },
  }, null, 2))
  writeFileSync(join(dir, 'skills', 'release-notes', 'SKILL.md'), [
    '---',
    'name: release-notes',
    'description: Write release notes from a list of changes. Use when asked for release notes, a changelog or a "what\'s new" text.',
    'allowed-tools: mcp__files__write_file',
    '---',
    '',
    '# Release notes',
    '',
    '1. Read the template: skills_read { name: "release-notes", path: "assets/template.md" }.',
    '2. Put each change under Features or Fixes, one line each, past tense, with its pull request number.',
    '3. Write the notes with the files server\'s write_file tool to the path the user gave.',
  ].join('\n'))
  writeFileSync(join(dir, 'skills', 'release-notes', 'assets', 'template.md'), '## v{{version}}\n\n### Features\n- …\n\n### Fixes\n- …\n')
}

/** A stand-in model that follows the skill, using the tool names the run really offers. */
function offlineModel(dataDir: string): Provider {
  const writeTool = (request: StreamOptions) => request.tools.find(spec => spec.name.endsWith('_write_file'))!.name
  const listTool = (request: StreamOptions) => request.tools.find(spec => spec.name.endsWith('_list_allowed_directories'))!.name
  return scriptedProvider([
    { toolCalls: [{ name: 'skills_use', input: { name: 'release-notes', reason: 'the user asks for release notes' } }] },
    { toolCalls: [{ name: 'skills_read', input: { name: 'release-notes', path: 'assets/template.md' } }] },
    { respond: request => ({ toolCalls: [{ name: listTool(request), input: {} }] }) },
    { respond: request => ({ toolCalls: [{ name: writeTool(request), input: {
      path: join(dataDir, 'NOTES.md'),
      content: '## v1.2.0\n\n### Features\n- Added `--dry-run` (#12).\n\n### Fixes\n- Fixed a crash on empty config files (#15).\n',
    } }] }) },
    { text: 'The release notes for v1.2.0 are written to NOTES.md.' },
  ])
}
