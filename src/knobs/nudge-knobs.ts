/**
 * Nudges: advisory steers for a model that is stuck in a way no hard guard
 * catches (an unknown tool name, a tool call written as text, shell used where
 * a dedicated tool exists, broad stalls, long deliberation). None of them
 * blocks a call or ends a run; each is off until set.
 */

import type { KnobCheck } from './define'
import { defineFields, defineKnobs, either, isFunction, isString, isStringList, oneOf, shape, wholeAtLeast } from './define'

/** What `unknownToolRecovery`'s message function is given. */
export interface UnknownToolMessageContext {
  /** The name the model called. */
  readonly called: string
  /** Advertised tool names closest to it, best first (possibly none). */
  readonly suggestions: readonly string[]
}

/** How `unknownToolRecovery` steers after a call of a tool that is not registered. */
export interface UnknownToolRecoveryConfig {
  /** Nudges per run at most; `0` never nudges. Default 3. */
  maxNudges?: number
  /** Suggested names per nudge at most. Default 3. */
  maxSuggestions?: number
  /** The steer text: a string sent verbatim, or built from the called name and the suggestions. Default: built in. */
  message?: string | ((ctx: UnknownToolMessageContext) => string)
  /** How the recovery reaches the model: a nudge joined to the next user turn. */
  mode?: 'steer'
}

/** `shellToolNudges` in its object form. */
export interface ShellToolNudgesConfig {
  /** Pointers per kind (read, search, edit) per session at most. Default 2. */
  maxPerKind?: number
}

/** A stall pattern that can trigger a progress nudge. */
export type ProgressNudgeKind = 'readOnlyTurns' | 'failedMutations' | 'noopMutations' | 'validationRejects' | 'toolErrors' | 'singleCallTurns'

/** The text of one progress nudge: fixed, or built from the kind and the streak that triggered it. */
export type ProgressNudgeMessage = string | ((ctx: { count: number, kind: ProgressNudgeKind }) => string)

/**
 * `progressNudges` in its object form: a threshold per stall pattern, a
 * run-wide cap, and the texts. Every pattern is off until given a threshold,
 * so `{}` watches nothing; `{ toolErrors: 4 }` watches tool errors alone.
 */
export interface ProgressNudgesConfig {
  /** Turns in a row whose calls are all read-only (6 is a usual value). Default `false` (off). */
  readOnlyTurns?: number | false
  /** Failed `edit` / `multi_edit` / `write_file` calls in a row (3 is a usual value). Default `false` (off). */
  failedMutations?: number | false
  /** Mutations in a row that changed nothing (3 is a usual value). Default `false` (off). */
  noopMutations?: number | false
  /** Calls in a row refused for invalid arguments (3 is a usual value). Default `false` (off). */
  validationRejects?: number | false
  /** Tool results in a row that are errors (4 is a usual value). Default `false` (off). */
  toolErrors?: number | false
  /** Turns in a row with exactly one tool call. Default `false` (off). */
  singleCallTurns?: number | false
  /** Progress nudges per run at most. Default 3. */
  maxNudges?: number
  /** Texts by kind, replacing the built-in ones. Default: built in. */
  messages?: Partial<Record<ProgressNudgeKind, ProgressNudgeMessage>>
  /** Canonical tool names that count as read-only for `readOnlyTurns`. Default: the read tools (`read_file`, `grep`, `glob`, `list_files`, …). */
  readOnlyTools?: readonly string[]
  /** How the nudge reaches the model: joined to the next user turn. */
  mode?: 'steer'
}

/** How `thinkingOverrunPolicy` reacts to a turn that thought longer than expected. */
export type ThinkingOverrunMode = 'off' | 'steer-next-turn'

/** `thinkingOverrunPolicy` in its object form. */
export interface ThinkingOverrunConfig {
  /** The steer text. Default: built in. */
  message?: string
  /** Default `'steer-next-turn'`. */
  mode?: ThinkingOverrunMode
  /** Thinking tokens in one turn above which it counts as an overrun. Default 8192. */
  thresholdTokens?: number
}

/** The nudges' knobs. */
export interface NudgeKnobs {
  /** After a call of an unregistered tool, nudge with the closest advertised names; the call's result stays an error. Default `false`. */
  unknownToolRecovery?: false | UnknownToolRecoveryConfig
  /** When the model writes a tool call as text instead of calling it, continue the run with a steer to call it natively; the text call never runs. Default `false`. */
  textToolCallRescue?: false | { mode?: 'steer' }
  /** Append a one-line pointer to a `shell` result that did a plain read, search or scripted edit a dedicated tool covers. Default `false`. */
  shellToolNudges?: boolean | ShellToolNudgesConfig
  /** Advisory nudges for broad stalls (read-only streaks, failing or no-op edits, validation refusals, tool errors); each pattern is off until given a threshold. Default `false`. */
  progressNudges?: false | ProgressNudgesConfig
  /** After a turn that thought past a threshold and goes on, nudge the next turn toward action. Default `'off'`. */
  thinkingOverrunPolicy?: ThinkingOverrunMode | ThinkingOverrunConfig
}

/** Defaults of the nudge slice. */
export const NUDGE_DEFAULTS = Object.freeze({
  unknownToolRecovery: false,
  textToolCallRescue: false,
  shellToolNudges: false,
  progressNudges: false,
  thinkingOverrunPolicy: 'off',
} satisfies NudgeKnobs)

/** Defaults of the object forms' fields (each read from here by its policy). */
export const UNKNOWN_TOOL_RECOVERY_DEFAULTS = Object.freeze({ maxNudges: 3, maxSuggestions: 3 } satisfies UnknownToolRecoveryConfig)
export const SHELL_TOOL_NUDGES_DEFAULTS = Object.freeze({ maxPerKind: 2 } satisfies ShellToolNudgesConfig)
export const PROGRESS_NUDGES_DEFAULTS = Object.freeze({
  readOnlyTurns: false,
  failedMutations: false,
  noopMutations: false,
  validationRejects: false,
  toolErrors: false,
  singleCallTurns: false,
  maxNudges: 3,
} satisfies ProgressNudgesConfig)
export const THINKING_OVERRUN_DEFAULTS = Object.freeze({ mode: 'steer-next-turn', thresholdTokens: 8192 } satisfies ThinkingOverrunConfig)

const STEER = oneOf('steer')
const THRESHOLD: KnobCheck = either(wholeAtLeast(1), oneOf(false))
const PROGRESS_KINDS = ['readOnlyTurns', 'failedMutations', 'noopMutations', 'validationRejects', 'toolErrors', 'singleCallTurns'] as const

/** Every progress-nudge kind, in the order the policy checks them. */
export const PROGRESS_NUDGE_KINDS: readonly ProgressNudgeKind[] = Object.freeze([...PROGRESS_KINDS])

const MESSAGE_FIELDS = defineFields<Record<ProgressNudgeKind, ProgressNudgeMessage>>('progressNudges.messages', {}, Object.fromEntries(
  PROGRESS_KINDS.map(kind => [kind, { doc: `The text of a \`${kind}\` nudge.`, defaultLabel: 'built in', check: either(isString, isFunction) }]),
) as Record<ProgressNudgeKind, { doc: string, defaultLabel: string, check: KnobCheck }>)

const UNKNOWN_TOOL_FIELDS = defineFields<UnknownToolRecoveryConfig>('unknownToolRecovery', UNKNOWN_TOOL_RECOVERY_DEFAULTS, {
  maxNudges: { doc: 'Nudges per run at most; `0` never nudges.', check: wholeAtLeast(0) },
  maxSuggestions: { doc: 'Suggested tool names per nudge at most.', check: wholeAtLeast(0) },
  message: { doc: 'The steer text, or `({ called, suggestions }) => string`.', defaultLabel: 'built in', check: either(isString, isFunction) },
  mode: { doc: 'A nudge joined to the next user turn (the only mode).', defaultLabel: '\'steer\'', check: STEER },
})

const TEXT_RESCUE_FIELDS = defineFields<{ mode?: 'steer' }>('textToolCallRescue', {}, {
  mode: { doc: 'A continuation that asks for the native call (the only mode).', defaultLabel: '\'steer\'', check: STEER },
})

const SHELL_NUDGE_FIELDS = defineFields<ShellToolNudgesConfig>('shellToolNudges', SHELL_TOOL_NUDGES_DEFAULTS, {
  maxPerKind: { doc: 'Pointers per kind (read, search, edit) per session at most.', check: wholeAtLeast(0) },
})

const PROGRESS_FIELDS = defineFields<ProgressNudgesConfig>('progressNudges', PROGRESS_NUDGES_DEFAULTS, {
  readOnlyTurns: { doc: 'Turns in a row whose calls are all read-only; off until set.', check: THRESHOLD },
  failedMutations: { doc: 'Failed `edit` / `multi_edit` / `write_file` calls in a row.', check: THRESHOLD },
  noopMutations: { doc: 'Mutations in a row that changed nothing.', check: THRESHOLD },
  validationRejects: { doc: 'Calls in a row refused for invalid arguments.', check: THRESHOLD },
  toolErrors: { doc: 'Tool results in a row that are errors.', check: THRESHOLD },
  singleCallTurns: { doc: 'Turns in a row with exactly one tool call.', check: THRESHOLD },
  maxNudges: { doc: 'Progress nudges per run at most.', check: wholeAtLeast(0) },
  messages: { doc: 'Texts by kind: a string, or `({ kind, count }) => string`.', defaultLabel: 'built in', check: shape(MESSAGE_FIELDS) },
  readOnlyTools: { doc: 'Canonical tool names that count as read-only.', defaultLabel: 'the read tools', check: isStringList },
  mode: { doc: 'A nudge joined to the next user turn (the only mode).', defaultLabel: '\'steer\'', check: STEER },
})

const OVERRUN_MODE = oneOf('off', 'steer-next-turn')

const OVERRUN_FIELDS = defineFields<ThinkingOverrunConfig>('thinkingOverrunPolicy', THINKING_OVERRUN_DEFAULTS, {
  message: { doc: 'The steer text.', defaultLabel: 'built in', check: isString },
  mode: { doc: '`\'off\'` or `\'steer-next-turn\'`.', check: OVERRUN_MODE },
  thresholdTokens: { doc: 'Thinking tokens in one turn above which it is an overrun.', check: wholeAtLeast(1) },
})

/** The nudge slice. */
export const NUDGE_KNOBS = defineKnobs<NudgeKnobs, typeof NUDGE_DEFAULTS>('nudges', NUDGE_DEFAULTS, {
  unknownToolRecovery: { doc: 'After a call of an unregistered tool, nudge with the closest advertised names.', check: either(oneOf(false), shape(UNKNOWN_TOOL_FIELDS)), fields: UNKNOWN_TOOL_FIELDS },
  textToolCallRescue: { doc: 'Continue with a steer when the model writes a tool call as text; the text call never runs.', check: either(oneOf(false), shape(TEXT_RESCUE_FIELDS)), fields: TEXT_RESCUE_FIELDS },
  shellToolNudges: { doc: 'Point `shell` reads, searches and scripted edits to the dedicated tool, when it is advertised.', check: either(oneOf(true, false), shape(SHELL_NUDGE_FIELDS)), fields: SHELL_NUDGE_FIELDS },
  progressNudges: { doc: 'Advisory nudges for broad stalls that exact repeat guards miss.', check: either(oneOf(false), shape(PROGRESS_FIELDS)), fields: PROGRESS_FIELDS },
  thinkingOverrunPolicy: { doc: 'Nudge the next turn toward action after a turn that thought past a threshold.', check: either(OVERRUN_MODE, shape(OVERRUN_FIELDS)), fields: OVERRUN_FIELDS },
})
