import type { GatedCall } from '../policy'

const PREFIX_PATTERN = /^(.*?)(?::| )\*$/s
const REGEX_SPECIAL = /[.+?^${}()|[\]\\]/g

/**
 * `allowed-tools` entries as the gate reads them. An entry is a tool name
 * (canonical or as the model sees it; a trailing `*` matches a prefix, as in
 * `mcp__github__*`), optionally followed by an argument pattern in
 * parentheses. The pattern is matched against the call's `command`, else its
 * `path`, else its `url`: `prefix:*` (or `prefix *`) matches text that starts
 * with `prefix`, any other pattern matches the whole text with `*` as a
 * wildcard. A tool without such an input never matches a pattern entry.
 * Names other clients use for the common tools (`Bash`, `Read`, `Write`,
 * `Edit`, `Grep`, `Glob`, `LS`, `WebFetch`, `WebSearch`) stand for zidane's
 * built-in tools, so skills written for them keep their meaning.
 */

/** Other clients' names of the built-in tools. */
export const TOOL_NAME_EQUIVALENTS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  Bash: ['shell'],
  Read: ['read_file'],
  Write: ['write_file'],
  Edit: ['edit', 'multi_edit'],
  MultiEdit: ['multi_edit'],
  Grep: ['grep'],
  Glob: ['glob'],
  LS: ['list_files'],
  WebFetch: ['fetch_url'],
  WebSearch: ['web_search'],
})

const ENTRY = /^([^()\s]+)(?:\((.*)\))?$/s

/** Whether one `allowed-tools` entry admits this call. */
export function entryAllows(entry: string, call: Pick<GatedCall, 'name' | 'displayName' | 'input'>): boolean {
  const match = ENTRY.exec(entry.trim())
  if (!match)
    return false
  const [, tool, pattern] = match
  if (!nameMatches(tool, call.name) && !nameMatches(tool, call.displayName) && !(TOOL_NAME_EQUIVALENTS[tool]?.includes(call.name) ?? false))
    return false
  if (pattern === undefined || pattern.trim() === '' || pattern.trim() === '*')
    return true
  const subject = argumentOf(call.input)
  return subject !== undefined && patternMatches(pattern.trim(), subject)
}

function nameMatches(entry: string, name: string): boolean {
  return entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : entry === name
}

function argumentOf(input: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of ['command', 'path', 'url']) {
    if (typeof input[key] === 'string')
      return input[key]
  }
  return undefined
}

function patternMatches(pattern: string, text: string): boolean {
  const prefix = PREFIX_PATTERN.exec(pattern)
  if (prefix) {
    const head = prefix[1]
    return text === head || text.startsWith(`${head} `) || (head.endsWith(' ') ? text.startsWith(head) : false) || text.startsWith(`${head}\t`)
  }
  const parts = pattern.split('*').map(part => part.replace(REGEX_SPECIAL, '\\$&'))
  return new RegExp(`^${parts.join('.*')}$`, 's').test(text)
}
