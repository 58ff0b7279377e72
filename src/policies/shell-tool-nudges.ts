import type { SessionTurn } from '../core/content'
import type { AgentBehavior } from '../knobs/behavior'
import type { BehaviorPolicy, PolicyToolsView } from './policy'
import { mergeObjects } from '../core/merge-objects'
import { SHELL_TOOL_NUDGES_DEFAULTS } from '../knobs/nudge-knobs'
import { isScriptedEdit } from './scripted-edit'
import { parseShellReads, shellSegments } from './shell-read-parser'

/** What a `shell` command did that a dedicated tool does better. */
export type ShellNudgeKind = 'read' | 'search' | 'edit'

const SEARCH_COMMANDS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack'])

function isPureSearch(command: string): boolean {
  const segments = shellSegments(command)
  if (!segments || segments.length === 0)
    return false
  const rest = segments[0][0] === 'cd' && segments[0].length === 2 ? segments.slice(1) : segments
  return rest.length > 0 && rest.every(([name, second]) => SEARCH_COMMANDS.has(name) || (name === 'git' && second === 'grep'))
}

/** What kind of work `command` does that a dedicated tool covers, if any. */
export function classifyShellCommand(command: string): ShellNudgeKind | undefined {
  if (isScriptedEdit(command))
    return 'edit'
  if (parseShellReads(command))
    return 'read'
  if (isPureSearch(command))
    return 'search'
  return undefined
}

const DEDICATED: Record<ShellNudgeKind, readonly string[]> = { read: ['read_file'], search: ['grep'], edit: ['edit', 'multi_edit'] }

/** The end of each pointer: how one is recognized in earlier turns of the session. */
const POINTER_ENDS: Record<ShellNudgeKind, string> = {
  read: 'prefer it to shell for plain file reads.]',
  search: 'prefer it to shell for content searches.]',
  edit: 'prefer it to scripted edits through shell.]',
}

function pointer(kind: ShellNudgeKind, names: readonly string[]): string {
  const tools = names.map(name => `\`${name}\``).join(' / ')
  switch (kind) {
    case 'read':
      return `[tip: ${tools} reads files with line numbers and paging; ${POINTER_ENDS.read}`
    case 'search':
      return `[tip: ${tools} searches file contents and reports paths and line numbers; ${POINTER_ENDS.search}`
    case 'edit':
      return `[tip: ${tools} changes files from exact text and checks the result; ${POINTER_ENDS.edit}`
  }
}

/** The advertised wire names of the tools that do `kind`'s work. */
function advertised(tools: PolicyToolsView, kind: ShellNudgeKind): string[] {
  const wanted = DEDICATED[kind]
  const found: string[] = []
  for (const canonical of wanted) {
    const spec = tools.specs.find(spec => tools.toCanonical(spec.name) === canonical)
    if (spec)
      found.push(spec.name)
  }
  return found
}

/** Pointers the session already holds, by kind (from earlier runs). */
function countEarlier(turns: readonly SessionTurn[]): Record<ShellNudgeKind, number> {
  const counts = { read: 0, search: 0, edit: 0 }
  for (const turn of turns) {
    for (const block of turn.content) {
      if (block.type !== 'tool_result' || typeof block.output !== 'string')
        continue
      for (const kind of ['read', 'search', 'edit'] as const) {
        if (block.output.endsWith(POINTER_ENDS[kind]))
          counts[kind] += 1
      }
    }
  }
  return counts
}

function maxPerKind(behavior: Readonly<AgentBehavior>): number {
  const value = behavior.shellToolNudges
  return typeof value === 'object' && value !== null && value.maxPerKind !== undefined ? value.maxPerKind : SHELL_TOOL_NUDGES_DEFAULTS.maxPerKind
}

/** Pointers shown per kind in this session (counted from the session's history once, at the first one that matters). */
export interface ShellToolNudgesState {
  readonly counts: Readonly<Record<ShellNudgeKind, number>> | null
}

/**
 * `shellToolNudges`: when a `shell` call did a plain file read, a content
 * search or a scripted edit, and the tool made for that work is advertised,
 * one line at the end of the shell result points to it. The pointer is part
 * of the result when it is recorded, so nothing sent earlier changes; at most
 * `maxPerKind` per kind per session, so it fades once the model has seen it.
 */
export const shellToolNudges: BehaviorPolicy<ShellToolNudgesState> = {
  // Listed after `track-shell-reads` among the built-ins: that policy reads the exit-code footer at the end of a shell result.
  name: 'shell-tool-nudges',
  enabled: behavior => behavior.shellToolNudges === true || (typeof behavior.shellToolNudges === 'object' && behavior.shellToolNudges !== null),
  initialState: () => ({ counts: null }),
  result({ behavior, run, call, result, isError, state }) {
    const command = call.input.command
    if (call.name !== 'shell' || typeof command !== 'string' || call.input.run_in_background === true || typeof result !== 'string')
      return
    const kind = classifyShellCommand(command)
    if (!kind)
      return
    const names = advertised(run.tools, kind)
    if (names.length === 0)
      return
    const counts = state.counts ?? countEarlier(run.session?.turns ?? [])
    if (counts[kind] >= maxPerKind(behavior))
      return state.counts === null ? { state: { counts } } : undefined
    return {
      state: { counts: mergeObjects(counts, { [kind]: counts[kind] + 1 }) as typeof counts },
      decision: { type: 'replace', result: `${result}\n${pointer(kind, names)}`, isError },
    }
  },
}
