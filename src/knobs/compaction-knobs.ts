/** Context-window knobs: tail compaction of old tool outputs and loop-native auto-compaction. */

import type { SessionMessage } from '../core/content'
import type { WireStageContext } from '../wire/stage'
import { atLeast, defineFields, defineKnobs, either, isFunction, isPositive, isStringList, oneOf, shape, wholeAtLeast } from './define'

/**
 * A compactor plugged in instead of the built-in tail elision. It receives
 * the messages about to be sent (after the host's `context:transform`) and
 * returns the view to send instead, sync or async. It changes what is sent
 * only: the recorded turns are never touched. Keep it deterministic, or every
 * request rewrites the prompt cache.
 */
export type CompactFunction = (
  messages: readonly SessionMessage[],
  ctx: WireStageContext,
) => readonly SessionMessage[] | Promise<readonly SessionMessage[]>

/** When client-side tail compaction stays out of a run. */
export interface CompactSkip {
  /** Skip only on runs whose window is at least this many tokens (an unknown window never matches). Default: any window. */
  minContextWindow?: number
  /** Skip only on these providers, by `Provider.name`. Default: any provider. */
  providers?: readonly string[]
}

/** Settings of loop-native auto-compaction (`autoCompact`). */
export interface AutoCompactConfig {
  /** Fraction of the context window a turn's input may reach before the older turns are summarized. Default `0.85`. */
  threshold?: number
  /** The window to measure against, in tokens: used when the `contextWindow` knob is unset, before the model target's own. */
  contextWindow?: number
  /** Most recent messages kept verbatim after the summary. Default 6. */
  keepTurns?: number
  /** Put the current text of the files the summarized turns read or wrote back in front of the model. Default true. */
  restore?: boolean
}

/** The `autoCompact` knob: `true` for the defaults, a config for chosen settings, `false` (or unset) for off. */
export type AutoCompact = boolean | AutoCompactConfig

/** How a run keeps its prompt inside the model's context window. */
export interface CompactionKnobs {
  /**
   * Client-side compaction of what is sent: `'off'`, `'tail'` (older tool
   * outputs become a short stub once their bytes pass `compactThreshold`), or
   * a `CompactFunction` called instead. The recorded turns never change.
   * Default `'off'`.
   */
  compactStrategy?: 'off' | 'tail' | CompactFunction
  /** Bytes of tool output kept on the wire before tail compaction moves its frontier. Default 131072. */
  compactThreshold?: number
  /**
   * Raise the tail threshold to this fraction of the context window (at 4
   * bytes a token) when the run knows its window, so large-window runs do not
   * pay a cache rewrite for every 128 KiB. Default: off (byte threshold only).
   */
  compactThresholdWindowFraction?: number
  /** Most recent messages whose tool outputs tail compaction never stubs. Default 4. */
  compactKeepTurns?: number
  /**
   * Hysteresis of tail compaction: each frontier step trims kept tool output
   * down to this fraction of the threshold, then waits for it to pass the
   * threshold again. Values outside `0 < f < 1` are ignored. Default: off
   * (the largest suffix under the threshold, every turn).
   */
  compactLowWaterFraction?: number
  /** Leave tail compaction out on runs that match (see `CompactSkip`). Default: never (no run is skipped). */
  compactSkip?: CompactSkip
  /**
   * Summarize the older turns with the model once a turn's input crosses a
   * fraction of the context window, and continue from the summary. `true`
   * uses the defaults. Inert without a known window. Default: off.
   */
  autoCompact?: AutoCompact
}

/** Defaults of the compaction slice. */
export const COMPACTION_DEFAULTS = Object.freeze({
  compactStrategy: 'off',
  compactThreshold: 131_072,
  compactKeepTurns: 4,
} satisfies CompactionKnobs)

/** What `autoCompact: true` (or an unset field of the object) behaves as. */
export const AUTO_COMPACT_DEFAULTS = Object.freeze({
  threshold: 0.85,
  keepTurns: 6,
  restore: true,
} satisfies AutoCompactConfig)

function isFraction(value: unknown) {
  return typeof value === 'number' && value > 0 && value <= 1
    ? undefined
    : { path: '', expected: 'a number above 0 and at most 1' }
}

const AUTO_COMPACT_FIELDS = defineFields<AutoCompactConfig>('autoCompact', AUTO_COMPACT_DEFAULTS, {
  threshold: { doc: 'Fraction of the window a turn\'s input may reach before the older turns are summarized.', check: isFraction },
  contextWindow: { doc: 'Window in tokens, used when the `contextWindow` knob is unset (before the model target\'s).', defaultLabel: 'run\'s', check: isPositive },
  keepTurns: { doc: 'Most recent messages kept verbatim after the summary.', check: wholeAtLeast(1) },
  restore: { doc: 'Re-read the files the summarized turns worked on and put them after the summary.', check: oneOf(true, false) },
})

const SKIP_FIELDS = defineFields<CompactSkip>('compactSkip', {}, {
  minContextWindow: { doc: 'Skip only when the run\'s window is at least this many tokens; an unknown window never matches.', defaultLabel: 'any window', check: isPositive },
  providers: { doc: 'Skip only on these providers (`Provider.name`).', defaultLabel: 'any provider', check: isStringList },
})

/** The compaction slice. */
export const COMPACTION_KNOBS = defineKnobs<CompactionKnobs, typeof COMPACTION_DEFAULTS>('compaction', COMPACTION_DEFAULTS, {
  compactStrategy: { doc: 'Client-side compaction of what is sent: `\'tail\'` stubs older tool outputs; a function replaces it.', check: either(oneOf('off', 'tail'), isFunction) },
  compactThreshold: { doc: 'Bytes of tool output kept on the wire before the tail frontier moves.', check: isPositive },
  compactThresholdWindowFraction: { doc: 'Raise the tail threshold to this fraction of the window (4 bytes a token).', defaultLabel: 'off', check: isFraction },
  compactKeepTurns: { doc: 'Most recent messages whose tool outputs are never stubbed.', check: atLeast(0) },
  compactLowWaterFraction: { doc: 'Each tail step trims kept tool output to this fraction of the threshold, then waits.', defaultLabel: 'off', check: atLeast(0) },
  compactSkip: { doc: 'Leave tail compaction out on matching providers and windows.', defaultLabel: 'never', check: shape(SKIP_FIELDS), fields: SKIP_FIELDS },
  autoCompact: { doc: 'Summarize older turns with the model when a turn\'s input nears the window.', defaultLabel: 'off', check: either(oneOf(true, false), shape(AUTO_COMPACT_FIELDS)), fields: AUTO_COMPACT_FIELDS },
})

/** `autoCompact` as a full config, or `undefined` when it is off. */
export function autoCompactConfig(value: CompactionKnobs['autoCompact']): Required<Omit<AutoCompactConfig, 'contextWindow'>> & Pick<AutoCompactConfig, 'contextWindow'> | undefined {
  if (value === undefined || value === false)
    return undefined
  if (value === true)
    return { ...AUTO_COMPACT_DEFAULTS }
  return {
    threshold: value.threshold ?? AUTO_COMPACT_DEFAULTS.threshold,
    keepTurns: value.keepTurns ?? AUTO_COMPACT_DEFAULTS.keepTurns,
    restore: value.restore ?? AUTO_COMPACT_DEFAULTS.restore,
    ...(value.contextWindow === undefined ? {} : { contextWindow: value.contextWindow }),
  }
}
