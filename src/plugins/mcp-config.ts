import type { McpServerConfig } from '../mcp/types'
import type { AgentPluginProblem } from './types'
import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { mergeObjects } from '../core/merge-objects'
import { sanitizeMcpName } from '../mcp/naming'
import { hasUnsafeCharacter } from '../skills/validate'
import { groupDigits } from '../text/group-digits'
import { truncateText } from '../text/truncate'

const HEADER_NAME = /^[!#$%&'*+\-.^`|~\w]+$/
const HEADER_BREAK = /[\r\n\0]/
const PLACEHOLDER = /\$\{PLUGIN_(ROOT|DATA)\}/g
const PATH_SEPARATOR = /[/\\]/
const WHITESPACE = /\s/
const IPV6_BRACKETS = /^\[|\]$/g
const LOOPBACK_V4 = /^127(?:\.\d{1,3}){3}$/
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\x00-\x1F\x7F-\x9F\u2028\u2029]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
/** Longest server name read from `mcp.json`. */
const SERVER_NAME_MAX_CHARS = 128

/** The `$schema` of an Agent Plugins 1.0.0 `plugin.json`, the version zidane reads. */
export const PLUGIN_SCHEMA_1_0 = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json'
/** The `$schema` of an Agent Plugins 1.0.0 `mcp.json`. */
export const PLUGIN_MCP_SCHEMA_1_0 = 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json'
/** Most servers read from one `mcp.json`. */
export const MAX_PLUGIN_SERVERS = 100

const STDIO_FIELDS = new Set(['type', 'command', 'args', 'env', 'cwd'])
const REMOTE_FIELDS = new Set(['type', 'url', 'headers'])
const ROOT = `$${'{PLUGIN_ROOT}'}`
const DATA = `$${'{PLUGIN_DATA}'}`

/** Where the plugin lives: the two placeholder values. */
export interface PluginPlaces {
  readonly root: string
  readonly dataDir: string
}

/**
 * The servers of a parsed `mcp.json`, each checked on its own: a bad entry
 * is a problem and the others still load. `${PLUGIN_ROOT}` and
 * `${PLUGIN_DATA}` are replaced once, textually, in stdio `args`, `env`
 * values and `cwd` only; `command`, `url` and headers keep their text, and no
 * other `${…}` is expanded (every config is `preExpanded`).
 */
export function pluginServers(json: Record<string, unknown>, places: PluginPlaces, problems: AgentPluginProblem[]): McpServerConfig[] {
  const servers = json.mcpServers as Record<string, unknown>
  const out: McpServerConfig[] = []
  // Names as tool names spell them: two that collide there would make the MCP connection refuse every server.
  const taken = new Map<string, string>()
  const entries = Object.entries(servers)
  for (const [index, [name, entry]] of entries.entries()) {
    if (index >= MAX_PLUGIN_SERVERS) {
      problems.push({ component: 'server', reason: `mcp.json declares ${entries.length} servers; the ${entries.length - MAX_PLUGIN_SERVERS} after the first ${MAX_PLUGIN_SERVERS} were not read` })
      break
    }
    if (name === '' || name.length > SERVER_NAME_MAX_CHARS || hasUnsafeCharacter(name)) {
      problems.push({ component: 'server', name: printable(truncateText(name, SERVER_NAME_MAX_CHARS)), reason: `a server name must be 1–${SERVER_NAME_MAX_CHARS} characters without control characters` })
      continue
    }
    const key = sanitizeMcpName(name)
    const earlier = taken.get(key)
    if (earlier !== undefined) {
      problems.push({ component: 'server', name, reason: `the name collides with server ${JSON.stringify(earlier)} once both are made safe for tool names ("${key}")` })
      continue
    }
    try {
      out.push(serverConfig(name, entry, places))
      taken.set(key, name)
    }
    catch (error) {
      problems.push({ component: 'server', name, reason: (error as Error).message })
    }
  }
  return out
}

function serverConfig(name: string, entry: unknown, places: PluginPlaces): McpServerConfig {
  if (!isRecord(entry))
    throw new Error('a server entry must be an object')
  const type = entry.type
  if (type === 'stdio')
    return stdioServer(name, entry, places)
  if (type === 'streamable-http' || type === 'sse')
    return remoteServer(name, type, entry)
  throw new Error(`unknown or missing \`type\` ${JSON.stringify(type)} (stdio, streamable-http or sse)`)
}

function stdioServer(name: string, entry: Record<string, unknown>, places: PluginPlaces): McpServerConfig {
  unknownFields(entry, STDIO_FIELDS)
  const command = entry.command
  if (typeof command !== 'string' || command === '')
    throw new Error('`command` is required (one executable token)')
  if (entry.args !== undefined && (!Array.isArray(entry.args) || entry.args.some(arg => typeof arg !== 'string')))
    throw new Error('`args` must be a list of strings')
  if (entry.env !== undefined && (!isRecord(entry.env) || Object.values(entry.env).some(value => typeof value !== 'string')))
    throw new Error('`env` must map names to strings')
  if (entry.cwd !== undefined && typeof entry.cwd !== 'string')
    throw new Error('`cwd` must be a string')
  const env = (entry.env ?? {}) as Record<string, string>
  for (const key of Object.keys(env)) {
    if (key.toUpperCase() === 'PLUGIN_ROOT' || key.toUpperCase() === 'PLUGIN_DATA')
      throw new Error(`\`env\` may not set ${key}: the client supplies it`)
    if (key === '' || key.includes('=') || key.includes('\0'))
      throw new Error(`\`env\` name ${printable(JSON.stringify(key))} is not a variable name (empty, or with = or NUL)`)
  }
  // A NUL cannot be passed to a process: refused here, naming the field, rather than when the server starts.
  const hasNul = (text: string) => text.includes('\0')
  if (hasNul(command) || ((entry.args ?? []) as string[]).some(hasNul) || Object.values(env).some(hasNul) || (entry.cwd !== undefined && hasNul(entry.cwd as string)))
    throw new Error('`command`, `args`, `env` values and `cwd` may not contain NUL')
  const expand = (text: string) => expandPlaceholders(text, places)
  return {
    name,
    transport: 'stdio',
    command: resolveCommand(command, places.root),
    args: ((entry.args ?? []) as string[]).map(expand),
    env: mergeObjects(Object.fromEntries(Object.entries(env).map(([key, value]) => [key, expand(value)])), { PLUGIN_ROOT: places.root, PLUGIN_DATA: places.dataDir }),
    cwd: resolveCwd(entry.cwd as string | undefined, places),
    preExpanded: true,
  }
}

function remoteServer(name: string, type: 'streamable-http' | 'sse', entry: Record<string, unknown>): McpServerConfig {
  unknownFields(entry, REMOTE_FIELDS)
  if (typeof entry.url !== 'string' || entry.url === '')
    throw new Error('`url` is required')
  let url: URL
  try {
    url = new URL(entry.url)
  }
  catch {
    throw new Error(`\`url\` ${JSON.stringify(entry.url)} is not an absolute URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error('`url` must be http or https')
  if (url.username !== '' || url.password !== '' || entry.url.includes('#'))
    throw new Error('`url` may not carry user information or a fragment')
  if (url.protocol === 'http:' && !isLoopback(url.hostname))
    throw new Error('`url` must use https unless its host is localhost or a loopback address')
  const headers = entry.headers
  if (headers !== undefined) {
    if (!isRecord(headers) || Object.values(headers).some(value => typeof value !== 'string'))
      throw new Error('`headers` must map names to strings')
    const seen = new Set<string>()
    for (const [key, value] of Object.entries(headers)) {
      if (!HEADER_NAME.test(key) || HEADER_BREAK.test(value as string))
        throw new Error(`header ${JSON.stringify(key)} is not a valid HTTP header`)
      if (seen.has(key.toLowerCase()))
        throw new Error(`header "${key}" is given twice (names are case-insensitive)`)
      seen.add(key.toLowerCase())
    }
  }
  return {
    name,
    transport: type,
    url: entry.url,
    ...(headers === undefined ? {} : { headers: { ...(headers as Record<string, string>) } }),
    pinHeaderOrigin: true,
    preExpanded: true,
  }
}

/** One pass over the text, so a value introduced by a replacement is never scanned again. */
export function expandPlaceholders(text: string, places: PluginPlaces): string {
  return text.replace(PLACEHOLDER, (_, which: string) => which === 'ROOT' ? places.root : places.dataDir)
}

/** A bare executable name stays as it is; `./…` resolves inside the plugin root (and must exist there). */
function resolveCommand(command: string, root: string): string {
  if (command.startsWith('./')) {
    const target = resolve(root, command)
    let real: string
    try {
      real = realpathSync(target)
    }
    catch {
      throw new Error(`\`command\` ${command} does not exist in the plugin`)
    }
    if (!within(root, real))
      throw new Error(`\`command\` ${command} resolves outside the plugin root`)
    return target
  }
  if (PATH_SEPARATOR.test(command) || WHITESPACE.test(command))
    throw new Error(`\`command\` ${JSON.stringify(command)} must be a bare executable name or a path starting with ./`)
  return command
}

/** `cwd`: omitted, the plugin root; else `./…`, `${PLUGIN_ROOT}…` or `${PLUGIN_DATA}…`, staying inside its base. */
function resolveCwd(cwd: string | undefined, places: PluginPlaces): string {
  if (cwd === undefined)
    return places.root
  let base: string
  if (cwd.startsWith('./'))
    base = places.root
  else if (cwd === ROOT || cwd.startsWith(`${ROOT}/`))
    base = places.root
  else if (cwd === DATA || cwd.startsWith(`${DATA}/`))
    base = places.dataDir
  else
    throw new Error(`\`cwd\` must start with ./, ${ROOT} or ${DATA}`)
  const expanded = cwd.startsWith('./') ? resolve(places.root, cwd) : resolve(expandPlaceholders(cwd, places))
  let real = expanded
  try {
    real = realpathSync(expanded)
  }
  catch {
    // Not created yet (a data subdirectory): its spelling must already stay inside.
  }
  if (!within(base, expanded) || !within(base, real))
    throw new Error(`\`cwd\` ${cwd} leaves ${base === places.root ? 'the plugin root' : 'the plugin data directory'}`)
  return expanded
}

function within(base: string, path: string): boolean {
  const rel = relative(base, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

function unknownFields(entry: Record<string, unknown>, allowed: ReadonlySet<string>): void {
  const extra = Object.keys(entry).filter(key => !allowed.has(key))
  if (extra.length > 0)
    throw new Error(`${extra.length > 1 ? `${groupDigits(extra.length)} fields` : 'field'} ${someNames(extra)} ${extra.length > 1 ? 'are' : 'is'} not part of a ${String(entry.type)} server`)
}

/**
 * A few of `names`, quoted, for a problem's reason: at most five, each cut to 64 characters, then how many more.
 * The names come from the plugin's JSON: 70,000 unknown fields of one server once made one reason of 688,926
 * characters, and one problem per field made as many process warnings.
 */
export function someNames(names: readonly string[]): string {
  const shown = names.slice(0, 5).map(name => `\`${name.length > 64 ? `${truncateText(name, 63)}…` : name}\``).join(', ')
  return names.length > 5 ? `${shown} and ${groupDigits(names.length - 5)} more` : shown
}

function isLoopback(host: string): boolean {
  const bare = host.replace(IPV6_BRACKETS, '')
  return bare === 'localhost' || bare === '::1' || LOOPBACK_V4.test(bare)
}

/** `text` with each control character, line separator and lone surrogate written as a `\u` escape, for a one-line warning or a report. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, char => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
