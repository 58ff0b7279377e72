/** The `codemode` tool's description: how scripts work, and in `'only'` mode the tools they can call. */

import type { ResolvedCodemode } from '../../knobs/codemode-knobs'
import type { CodemodeEntry } from './catalog'
import { firstSentence, signatureOf } from './catalog'

/** Rough characters per token, for `inlineBudget` (an estimate; no tokenizer is loaded). */
const CHARS_PER_TOKEN = 4

/** Estimated tokens of a text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}

function base(settings: ResolvedCodemode): string[] {
  const mib = Math.round(settings.memoryLimitBytes / (1024 * 1024))
  return [
    'Run a JavaScript script that calls tools: loops, conditions and many calls in one step. Only what the script prints and returns reaches you, so filter and aggregate inside it.',
    'The code is the body of an async function: use `await`, and `return` a value (you get it as JSON, after the printed lines).',
    'Globals: `tools.<name>(args)` calls a tool and resolves to its result (the parsed value when the result is JSON, else the text); `callTool(name, args)` does the same by name; `await searchTools(query, limit?)` finds tools (`[{ name, description, server? }]`); `await describeTool(name)` gives a tool\'s description and input schema; `console.log` / `warn` / `error` print.',
    'A failed or refused call rejects with an Error (`message`, `tool`, `blocked`); catch it to go on.',
    `Nothing else: no network, files, timers, \`require\` or \`import\`. Each script gets a fresh state, ${Math.round(settings.timeoutMs / 1000)} s and ${mib} MiB.`,
  ]
}

/** The description in `'on'` mode: the script tools are the tools the model already has. */
export function describeOn(settings: ResolvedCodemode): string {
  return [...base(settings), 'Every tool you can call is also `tools.<its name>` inside a script, with the same arguments.'].join('\n')
}

/**
 * The description in `'only'` mode. Native tools are declared with a
 * signature and the first sentence of their description while the estimate
 * stays within `inlineBudget`; the tools past it are listed by name, and past
 * that counted per server. Lazily disclosed tools are in the system prompt's
 * catalog already and are not repeated.
 */
export function describeOnly(settings: ResolvedCodemode, catalog: readonly CodemodeEntry[]): string {
  const lines = [...base(settings), '', 'These tools are only callable from a script:']
  let budget = settings.inlineBudget
  const listed = catalog.filter(entry => !entry.deferred)
  const rest: CodemodeEntry[] = []
  for (const entry of listed) {
    const line = `- tools.${entry.wireName}(${signatureOf(entry.inputSchema)}): ${firstSentence(entry.description)}`
    const cost = estimateTokens(line)
    if (entry.server === undefined && cost <= budget) {
      lines.push(line)
      budget -= cost
    }
    else {
      rest.push(entry)
    }
  }
  if (rest.length === 0)
    return lines.join('\n')
  const names: string[] = []
  const counted = new Map<string, number>()
  for (const entry of rest) {
    const cost = estimateTokens(`${entry.wireName}, `)
    if (cost <= budget) {
      names.push(entry.wireName)
      budget -= cost
    }
    else {
      const server = entry.server ?? 'native'
      counted.set(server, (counted.get(server) ?? 0) + 1)
    }
  }
  if (names.length > 0)
    lines.push(`More tools (read their arguments with describeTool): ${names.join(', ')}.`)
  for (const [server, count] of counted)
    lines.push(`${count} more tool${count === 1 ? '' : 's'} ${server === 'native' ? 'of this agent' : `from the MCP server "${server}"`}: find them with searchTools().`)
  return lines.join('\n')
}
