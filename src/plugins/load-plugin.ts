import type { McpServerConfig } from '../mcp/types'
import type { SkillConfig } from '../skills/types'
import type { AgentPlugin, AgentPluginManifest, AgentPluginProblem, LoadAgentPluginOptions } from './types'
import { lstat, mkdir, realpath, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { nestsDeeperThan } from '../core/json-depth'
import { mergeObjects } from '../core/merge-objects'
import { AgentPluginError } from '../errors'
import { inside, LEFT_ROOT, loadSkills, NO_SKILL_HERE, NOT_REGULAR, readBounded } from '../skills/load'
import { groupDigits } from '../text/group-digits'
import { isRecord, PLUGIN_MCP_SCHEMA_1_0, PLUGIN_SCHEMA_1_0, pluginServers, printable, someNames } from './mcp-config'

const ENDS_ALPHANUMERIC = /[a-z0-9]$/

/** Largest `plugin.json` or `mcp.json` read, in bytes. */
export const PLUGIN_FILE_MAX_BYTES = 1024 * 1024
/** Deepest nesting of objects and arrays accepted in `plugin.json` or `mcp.json` (a manifest's `extensions` is handed to the host as it is). */
export const PLUGIN_JSON_MAX_DEPTH = 100

const MANIFEST_FIELDS = new Set(['$schema', 'name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords', 'extensions'])
const PLUGIN_NAME = /^[a-z0-9](?:[a-z0-9]|-(?!-)|\.(?!\.))*$/

/**
 * Load an Agent Plugin (Agent Plugins 1.0.0): `plugin.json` at its root, MCP
 * servers from `mcp.json`, skills from `skills/`. A manifest that breaks the
 * specification rejects the whole plugin (`AgentPluginError`); a bad
 * `mcp.json`, server entry or skill is left out and listed in `problems`
 * (and a process warning, code `ZIDANE_PLUGIN_PROBLEM`) while the rest loads.
 *
 * ```ts fragment
 * const plugin = await loadAgentPlugin('./plugins/reports', { dataDir: './.data/reports' })
 * const agent = createAgent({ provider, mcpServers: plugin.mcpServers, skills: plugin.skills })
 * ```
 */
export async function loadAgentPlugin(dir: string, options: LoadAgentPluginOptions): Promise<AgentPlugin> {
  if (typeof options?.dataDir !== 'string' || options.dataDir === '')
    throw new TypeError('loadAgentPlugin(): `dataDir` is required (the plugin\'s own persistent data directory)')
  let root: string
  try {
    root = await realpath(dir)
    if (!(await stat(root)).isDirectory())
      throw new Error('not a directory')
  }
  catch {
    throw new AgentPluginError(dir, 'the plugin root is not a directory')
  }
  const problems: AgentPluginProblem[] = []
  const manifest = await readManifest(dir, root, problems)
  await mkdir(resolve(options.dataDir), { recursive: true })
  const dataDir = await realpath(options.dataDir)
  const mcpServers = await readServers(root, dataDir, problems)
  const skills = await readSkills(root, problems)
  // The text comes from the plugin (field and server names, paths, skill problems). A host prints the problems
  // themselves too (plugins.md does), so they carry no control character raw, not only the warnings made of them.
  const reported = problems.map(printableProblem)
  for (const problem of reported)
    process.emitWarning(`Agent plugin "${manifest.name}": ${problem.component}${problem.name === undefined ? '' : ` "${problem.name}"`}: ${problem.reason}`, { code: 'ZIDANE_PLUGIN_PROBLEM' })
  return { manifest, root, dataDir, mcpServers, skills, problems: reported }
}

function printableProblem(problem: AgentPluginProblem): AgentPluginProblem {
  const fixed: { reason: string, name?: string, path?: string } = { reason: printable(problem.reason) }
  if (problem.name !== undefined)
    fixed.name = printable(problem.name)
  if (problem.path !== undefined)
    fixed.path = printable(problem.path)
  return mergeObjects(problem, fixed)
}

async function readManifest(dir: string, root: string, problems: AgentPluginProblem[]): Promise<AgentPluginManifest> {
  const path = join(root, 'plugin.json')
  const kind = await kindOf(path)
  if (kind === 'other' || kind === 'directory')
    throw new AgentPluginError(dir, 'plugin.json is not a regular file (a FIFO, a device, a socket, a directory or a dangling link)')
  if (kind === 'file' && !inside(root, await realpath(path)))
    throw new AgentPluginError(dir, 'plugin.json resolves outside the plugin root')
  const json = await readJson(path, root).catch((error: Error) => {
    throw new AgentPluginError(dir, `plugin.json: ${error.message}`)
  })
  if (json === undefined)
    throw new AgentPluginError(dir, 'no plugin.json at the plugin root')
  const fail = (message: string): never => {
    throw new AgentPluginError(dir, `plugin.json: ${message}`)
  }
  if (!isRecord(json))
    fail('the manifest must be a JSON object')
  const manifest = json as Record<string, unknown>
  if (manifest.$schema !== PLUGIN_SCHEMA_1_0)
    fail(`unsupported \`$schema\` ${JSON.stringify(manifest.$schema)}; zidane reads Agent Plugins 1.0.0 (${PLUGIN_SCHEMA_1_0})`)
  const name = manifest.name
  if (typeof name !== 'string' || name.length < 1 || name.length > 64 || !PLUGIN_NAME.test(name) || !ENDS_ALPHANUMERIC.test(name))
    fail(`\`name\` ${JSON.stringify(name)} must be 1–64 characters of a-z, 0-9, - and ., starting and ending alphanumeric, without -- or ..`)
  for (const key of ['version', 'description', 'homepage', 'repository', 'license'] as const) {
    if (manifest[key] !== undefined && typeof manifest[key] !== 'string')
      fail(`\`${key}\` must be a string`)
  }
  if (manifest.keywords !== undefined && (!Array.isArray(manifest.keywords) || manifest.keywords.some(word => typeof word !== 'string')))
    fail('`keywords` must be a list of strings')
  const author = manifest.author
  if (author !== undefined && (!isRecord(author) || Object.entries(author).some(([key, value]) => !['name', 'email', 'url'].includes(key) || typeof value !== 'string')))
    fail('`author` may hold only `name`, `email` and `url` strings')
  const out: Record<string, unknown> = {}
  const unknown: string[] = []
  // Where the first unknown field would have been reported: the one problem for them all takes its place.
  let unknownAt = 0
  for (const [key, value] of Object.entries(manifest)) {
    if (!MANIFEST_FIELDS.has(key)) {
      if (unknown.length === 0)
        unknownAt = problems.length
      unknown.push(key)
      continue
    }
    if (key === 'extensions' && !isRecord(value)) {
      problems.push({ component: 'manifest', path, reason: '`extensions` is not an object; ignored' })
      continue
    }
    out[key] = value
  }
  // One problem for them all: a manifest of 90,000 unknown fields was 90,000 problems and as many process warnings.
  if (unknown.length > 0)
    problems.splice(unknownAt, 0, { component: 'manifest', path, reason: `${unknown.length === 1 ? 'unknown field' : `${groupDigits(unknown.length)} unknown fields`} ${someNames(unknown)} ignored` })
  return out as unknown as AgentPluginManifest
}

async function readServers(root: string, dataDir: string, problems: AgentPluginProblem[]): Promise<McpServerConfig[]> {
  const path = join(root, 'mcp.json')
  const kind = await kindOf(path)
  if (kind === 'missing')
    return []
  const disable = (reason: string): McpServerConfig[] => {
    problems.push({ component: 'mcp', path, reason: `${reason}; MCP is off for this plugin` })
    return []
  }
  if (kind !== 'file')
    return disable('mcp.json is not a regular file')
  if (!inside(root, await realpath(path)))
    return disable('mcp.json resolves outside the plugin root')
  let json: unknown
  try {
    json = await readJson(path, root)
  }
  catch (error) {
    return disable(`mcp.json: ${(error as Error).message}`)
  }
  if (!isRecord(json))
    return disable('mcp.json must be a JSON object')
  if (json.$schema !== PLUGIN_MCP_SCHEMA_1_0)
    return disable(`mcp.json \`$schema\` ${JSON.stringify(json.$schema)} is not ${PLUGIN_MCP_SCHEMA_1_0} (the version of plugin.json)`)
  const extra = Object.keys(json).filter(key => key !== '$schema' && key !== 'mcpServers')
  if (extra.length > 0)
    return disable(`mcp.json has fields beyond $schema and mcpServers: ${someNames(extra)}`)
  if (!isRecord(json.mcpServers))
    return disable('mcp.json `mcpServers` must be an object')
  return pluginServers(json, { root, dataDir }, problems)
}

async function readSkills(root: string, problems: AgentPluginProblem[]): Promise<SkillConfig[]> {
  const folder = join(root, 'skills')
  const kind = await kindOf(folder)
  if (kind === 'missing')
    return []
  if (kind !== 'directory' || !inside(root, await realpath(folder))) {
    problems.push({ component: 'skills', path: folder, reason: 'skills is not a directory inside the plugin root; no skills loaded' })
    return []
  }
  const loaded = await loadSkills([folder])
  for (const skip of loaded.skipped) {
    // A folder with no skill in it is no problem: the location is optional.
    if (skip.path === folder && skip.reason === NO_SKILL_HERE)
      continue
    problems.push({ component: 'skill', path: skip.path, ...(skip.name === undefined ? {} : { name: skip.name }), reason: skip.reason })
  }
  const skills: SkillConfig[] = []
  for (const skill of loaded.skills) {
    if (skill.dir !== undefined && !inside(root, await realpath(skill.dir))) {
      problems.push({ component: 'skill', path: skill.dir, name: skill.name, reason: 'the skill directory resolves outside the plugin root' })
      continue
    }
    skills.push(skill)
  }
  return skills
}

/**
 * A JSON file's value, `undefined` when the file is absent; a file over the
 * cap, no regular file (checked on the opened file, so a FIFO never blocks),
 * one that is not inside `root` once opened (see `readBounded`),
 * not JSON, or nested deeper than `PLUGIN_JSON_MAX_DEPTH` throws.
 */
async function readJson(path: string, root: string): Promise<unknown> {
  if (await kindOf(path) === 'missing')
    return undefined
  const text = await readBounded(path, PLUGIN_FILE_MAX_BYTES, root)
  if (text === LEFT_ROOT)
    throw new Error('swapped for a link that leaves the plugin root while it was opened; not read')
  if (text === undefined)
    throw new Error(`larger than ${PLUGIN_FILE_MAX_BYTES} bytes`)
  if (text === NOT_REGULAR)
    throw new Error('not a regular file (a FIFO, a device or a socket)')
  let json: unknown
  try {
    json = JSON.parse(text)
  }
  catch (error) {
    throw new Error(`not valid JSON (${(error as Error).message})`)
  }
  if (nestsDeeperThan(json, PLUGIN_JSON_MAX_DEPTH))
    throw new Error(`nested more than ${PLUGIN_JSON_MAX_DEPTH} levels deep`)
  return json
}

async function kindOf(path: string): Promise<'missing' | 'file' | 'directory' | 'other'> {
  try {
    await lstat(path)
  }
  catch {
    return 'missing'
  }
  try {
    const info = await stat(path)
    return info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other'
  }
  catch {
    // A dangling link.
    return 'other'
  }
}
