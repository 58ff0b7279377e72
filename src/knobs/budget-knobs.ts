/**
 * The budget knobs: per-tool call budgets, the per-turn tool-output budget,
 * per-tool argument deduplication and stale-read elision. Each is read by
 * its own policy in `src/policies/`; the types live here, below them.
 */

import type { KnobCheck } from './define'
import { defineKnobs, either, isBoolean, isFunction, isLimit, isRecord, isStringList, oneOf, wholeAtLeast } from './define'

/** What happens to a call past its tool's budget: it runs and the model is nudged, or it is refused. */
export type ToolBudgetMode = 'steer' | 'block'

/** What an `onExceed` function is told about the call past the budget. */
export interface ToolBudgetExceedContext {
  /** Canonical tool name (the `toolBudgets` key). */
  readonly tool: string
  readonly max: number
  /** Calls of the tool already dispatched in this run (at least `max`). */
  readonly count: number
  readonly callId: string
  readonly input: Readonly<Record<string, unknown>>
}

/** How a tool budget answers a call past it: a mode with the built-in text, or a function choosing both. */
export type ToolBudgetOnExceed = ToolBudgetMode | ((ctx: ToolBudgetExceedContext) => { message: string, mode: ToolBudgetMode })

/** One tool's call budget for a run. */
export interface ToolBudget {
  /** Calls dispatched before the budget is exceeded (`0`: the first call already is). */
  max: number
  /** Default `'steer'`. */
  onExceed?: ToolBudgetOnExceed
}

/**
 * A `dedupTools` hasher: a non-empty string is the call's cache key (an equal
 * key to the tool's last recorded one replays that result); `undefined`, `''`
 * or any non-string skips dedup for this call (it runs, nothing is recorded).
 */
export type DedupHasher = (input: Readonly<Record<string, unknown>>) => string | undefined

/** How stale `read_file` results are handled: stubbed on the wire, or flagged by a notice on the mutating result. */
export type StaleReadPolicy = 'stub' | 'notice'

/**
 * Tools whose whole job is to load context (tool schemas, skill text), so
 * charging their output to `toolOutputBudget` would steer the model away from
 * the call it needed. Pass it as `toolOutputBudgetExcludeTools`.
 */
export const DEFAULT_BUDGET_EXCLUDE_TOOLS: readonly string[] = Object.freeze(['tool_search', 'skills_use', 'skills_read'])

/** Knobs of the budget and dedup policies. */
export interface BudgetKnobs {
  /**
   * Per-tool call budgets for one run, keyed by canonical tool name. A call
   * made once `max` calls of that tool were dispatched exceeds it: `'steer'`
   * runs it and nudges the model after the turn, `'block'` refuses it, a
   * function picks the mode and text. Counted for the whole batch at once.
   * Default: none.
   */
  toolBudgets?: Record<string, ToolBudget>
  /** Bytes of tool output per turn past which the model is told to summarize before calling more tools (`0`: off). Default: off. */
  toolOutputBudget?: number
  /** Canonical tool names whose output `toolOutputBudget` does not count. Default: none (every tool counts). */
  toolOutputBudgetExcludeTools?: readonly string[]
  /** Per-tool hashers: a call whose key equals the tool's last recorded key is answered with that result (needs a session). Default: none. */
  dedupTools?: Record<string, DedupHasher>
  /** `'stub'` (or `true`) elides reads made stale by a later write on the wire; `'notice'` flags them in the write's result. Default false. */
  elideStaleReads?: boolean | StaleReadPolicy
}

/** Defaults of the budget slice. */
export const BUDGET_DEFAULTS = Object.freeze({
  elideStaleReads: false,
} satisfies BudgetKnobs)

const MODE = oneOf('steer', 'block')
const MAX = wholeAtLeast(0)

// Problems below are reported on the knob itself, naming the entry: tool names may hold dots, which a problem path cannot.

/** Each entry an object with a whole `max` and an optional `onExceed` mode or function. */
const isToolBudgets: KnobCheck = (value) => {
  const base = isRecord(value)
  if (base)
    return base
  for (const [tool, budget] of Object.entries(value as Record<string, unknown>)) {
    const entry = isRecord(budget)
    if (entry)
      return { path: '', expected: `an object { max, onExceed? } for ${JSON.stringify(tool)}` }
    const { max, onExceed } = budget as Record<string, unknown>
    const badMax = MAX(max)
    if (badMax)
      return { path: '', expected: `${JSON.stringify(tool)}.max: ${badMax.expected}` }
    const badMode = onExceed === undefined ? undefined : either(MODE, isFunction)(onExceed)
    if (badMode)
      return { path: '', expected: `${JSON.stringify(tool)}.onExceed: ${badMode.expected}` }
  }
  return undefined
}

/** Each entry a hasher function. */
const isHashers: KnobCheck = (value) => {
  const base = isRecord(value)
  if (base)
    return base
  for (const [tool, hasher] of Object.entries(value as Record<string, unknown>)) {
    if (typeof hasher !== 'function')
      return { path: '', expected: `a function (input) => string | undefined for ${JSON.stringify(tool)}` }
  }
  return undefined
}

/** The budget slice. */
export const BUDGET_KNOBS = defineKnobs<BudgetKnobs, typeof BUDGET_DEFAULTS>('budgets', BUDGET_DEFAULTS, {
  toolBudgets: { doc: 'Per-tool call budgets for a run: past `max` dispatched calls, steer (run it, nudge) or block, atomically per batch.', defaultLabel: 'none', check: isToolBudgets },
  toolOutputBudget: { doc: 'Tool-output bytes per turn past which the model is told to summarize before calling more tools.', defaultLabel: 'off', check: isLimit },
  toolOutputBudgetExcludeTools: { doc: 'Canonical tool names whose output `toolOutputBudget` does not count.', defaultLabel: 'none', check: isStringList },
  dedupTools: { doc: 'Per-tool hashers: an equal key to the tool\'s last recorded one replays that result (needs a session).', defaultLabel: 'none', check: isHashers },
  elideStaleReads: { doc: 'Reads made stale by a later successful write: stubbed on the wire (`\'stub\'` / `true`) or flagged (`\'notice\'`).', check: either(isBoolean, oneOf('stub', 'notice')) },
})
