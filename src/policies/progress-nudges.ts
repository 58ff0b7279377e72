import type { AgentBehavior } from '../knobs/behavior'
import type { ProgressNudgeKind, ProgressNudgesConfig } from '../knobs/nudge-knobs'
import type { BehaviorPolicy } from './policy'
import { mergeObjects } from '../core/merge-objects'
import { PROGRESS_NUDGE_KINDS, PROGRESS_NUDGES_DEFAULTS } from '../knobs/nudge-knobs'
import { nudge } from './policy'

/** Tools that only look (files, the web, task lists): a run of turns calling nothing else is a read-only streak. */
export const DEFAULT_READ_ONLY_TOOLS: readonly string[] = Object.freeze(['read_file', 'grep', 'glob', 'list_files', 'fetch_url', 'web_search', 'todoread', 'list_tasks'])

const MUTATION_TOOLS = new Set(['edit', 'multi_edit', 'write_file'])

/** The prefix the loop gives a call refused for invalid arguments. */
const INVALID_ARGUMENTS = 'Invalid arguments for '

const DEFAULT_MESSAGES: Record<ProgressNudgeKind, (count: number) => string> = {
  readOnlyTurns: count => `The last ${count} turns only read and searched. If you know enough, make the change now; if not, say what is still missing.`,
  failedMutations: count => `The last ${count} edits failed. Read the file again for its current text before the next edit, or change the approach.`,
  noopMutations: count => `The last ${count} edits changed nothing. Check whether the change is already there, and read the file again before another try.`,
  validationRejects: count => `The last ${count} tool calls were refused for invalid arguments. Check the tool's schema and send every required field with the right type.`,
  toolErrors: count => `The last ${count} tool calls failed. Read the errors and change the approach instead of repeating it.`,
  singleCallTurns: count => `The last ${count} turns made one tool call each. Make calls that do not depend on each other together, in one turn.`,
}

function configOf(behavior: Readonly<AgentBehavior>): ProgressNudgesConfig | undefined {
  const value = behavior.progressNudges
  return typeof value === 'object' && value !== null ? value : undefined
}

/** Whether a pattern is watched at all: every one is off until the host gives it a threshold. */
function watchesAnything(config: ProgressNudgesConfig | undefined): boolean {
  return config !== undefined && PROGRESS_NUDGE_KINDS.some(kind => thresholdOf(config, kind) !== undefined)
}

function thresholdOf(config: ProgressNudgesConfig, kind: ProgressNudgeKind): number | undefined {
  const value = config[kind] ?? PROGRESS_NUDGES_DEFAULTS[kind]
  return typeof value === 'number' ? value : undefined
}

type Streaks = Readonly<Record<ProgressNudgeKind, number>>

/** The current streak of each stall pattern, and the nudges sent so far in the run. */
export interface ProgressNudgesState {
  readonly streaks: Streaks
  readonly nudges: number
}

const NO_STREAKS: Streaks = Object.freeze({ readOnlyTurns: 0, failedMutations: 0, noopMutations: 0, validationRejects: 0, toolErrors: 0, singleCallTurns: 0 })

function bump(streaks: Streaks, kind: ProgressNudgeKind, grows: boolean): Streaks {
  const next = grows ? streaks[kind] + 1 : 0
  return next === streaks[kind] ? streaks : mergeObjects(streaks, { [kind]: next }) as Streaks
}

/**
 * `progressNudges`: stalls that exact repeat guards miss because no two calls
 * are the same: turn after turn of reading, edits that keep failing or change
 * nothing, arguments the schema keeps refusing, errors in a row, one call per
 * turn. Each pattern the host gives a threshold has a streak (the others are
 * off, so `{}` watches nothing); when a streak reaches its threshold, one
 * nudge joins the next user turn and that streak starts over. At most one
 * progress nudge per turn, `maxNudges` per run. It never blocks a call or
 * ends a run.
 */
export const progressNudges: BehaviorPolicy<ProgressNudgesState> = {
  name: 'progress-nudges',
  enabled: behavior => watchesAnything(configOf(behavior)),
  initialState: () => ({ streaks: NO_STREAKS, nudges: 0 }),
  result({ call, result, isError, outcome, state }) {
    const rejected = isError && typeof result === 'string' && result.startsWith(INVALID_ARGUMENTS)
    let streaks = bump(state.streaks, 'validationRejects', rejected)
    streaks = bump(streaks, 'toolErrors', isError)
    if (MUTATION_TOOLS.has(call.name)) {
      const failed = isError || outcome === 'failed'
      const noop = !failed && outcome === 'noop'
      if (failed)
        streaks = bump(streaks, 'failedMutations', true)
      else if (noop)
        streaks = bump(streaks, 'noopMutations', true)
      else
        streaks = bump(bump(streaks, 'failedMutations', false), 'noopMutations', false)
    }
    return streaks === state.streaks ? undefined : { state: { streaks, nudges: state.nudges } }
  },
  afterTurn({ behavior, assistant, decided, state }) {
    const config = configOf(behavior)!
    const calls = assistant.content.filter(block => block.type === 'tool_call')
    const readOnly = new Set(config.readOnlyTools ?? DEFAULT_READ_ONLY_TOOLS)
    let streaks = bump(state.streaks, 'readOnlyTurns', calls.length > 0 && calls.every(block => readOnly.has(block.name)))
    streaks = bump(streaks, 'singleCallTurns', calls.length === 1)
    const maxNudges = config.maxNudges ?? PROGRESS_NUDGES_DEFAULTS.maxNudges
    // A nudge only helps a run that goes on: after a turn without calls the model has answered.
    const due = calls.length === 0 || decided.ending || state.nudges >= maxNudges
      ? undefined
      : PROGRESS_NUDGE_KINDS.find((kind) => {
          const threshold = thresholdOf(config, kind)
          return threshold !== undefined && streaks[kind] >= threshold
        })
    if (!due)
      return streaks === state.streaks ? undefined : { state: { streaks, nudges: state.nudges } }
    const count = streaks[due]
    const message = config.messages?.[due]
    const text = typeof message === 'function' ? message({ count, kind: due }) : message ?? DEFAULT_MESSAGES[due](count)
    return { state: { streaks: mergeObjects(streaks, { [due]: 0 }) as Streaks, nudges: state.nudges + 1 }, decision: nudge(text, 'progress-nudge') }
  },
}
