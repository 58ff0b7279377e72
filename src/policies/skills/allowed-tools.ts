import type { GatedCall } from '../policy'

const PREFIX_PATTERN = /^(.*?)(?::| )\*$/s

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
  return wildcardMatches(pattern, text)
}

/**
 * Whether `text` is `pattern` with each `*` standing for any run of
 * characters. The skill writes the pattern and the model the text (a shell
 * command, a path), so this never backtracks: as a regular expression,
 * `*a*a*b` against 10,000 `a`s took almost two minutes on the main thread.
 * The first piece must start the text and the last end it; each piece
 * between is taken at its first place after the one before, which is never
 * worse than a later place since a `*` may take any run. So a match costs
 * one search per piece, each at most text × piece.
 */
export function wildcardMatches(pattern: string, text: string): boolean {
  const pieces = pattern.split('*')
  const first = pieces[0]
  if (pieces.length === 1)
    return text === first
  const last = pieces.at(-1) ?? ''
  const end = text.length - last.length
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last))
    return false
  let at = first.length
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]
    if (piece === '')
      continue
    const found = text.indexOf(piece, at)
    if (found === -1 || found + piece.length > end)
      return false
    at = found + piece.length
  }
  return true
}
