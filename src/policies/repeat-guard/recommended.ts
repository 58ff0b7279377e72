/**
 * The repeat guard's recommended configuration: the one the guards benchmark
 * (`bench/guards`) measures at every loop stopped and no honest run
 * disturbed, under a name a host turns on in one line.
 */

import type { RepeatGuardConfig, RepeatGuardToolMatcher } from '../../knobs/repeat-knobs'
import { defaultRepeatKey } from './index'

/** Options of `recommendedRepeatGuard`. */
export interface RecommendedRepeatGuardOptions {
  /**
   * Tools the model calls again and again with the same input on purpose (a
   * job-status or wait tool). They are neither tracked nor counted by the
   * global ceiling. Default: none.
   */
  pollTools?: readonly RepeatGuardToolMatcher[]
}

/** Long digit runs and ISO timestamps: they make each call look new while saying nothing about what it does. */
const NOISE = /\d{6,}|\d{4}-\d\d-\d\dT[\d:.]+Z/g

/**
 * A streak key that knows when the workspace changed: the built-in key with
 * timestamps and ids masked, prefixed with a generation that moves on when an
 * `edit` or `write_file` really changes a file. A test run or a read after a
 * real change is a new question; an edit that changes nothing does not count
 * as a change, so a read-edit-read cycle keeps counting.
 */
function workspaceAwareKey(): NonNullable<RepeatGuardConfig['normalize']> {
  let generation = 0
  const written = new Map<string, unknown>()
  return (name, input) => {
    const path = String(input.path)
    const changes = name === 'edit'
      ? input.old_string !== input.new_string
      : name === 'write_file' && written.get(path) !== input.content
    if (name === 'write_file')
      written.set(path, input.content)
    if (changes)
      generation += 1
    return `${generation}|${defaultRepeatKey(name, input).replace(NOISE, '#')}`
  }
}

/**
 * The recommended repeat guard: both counters (back-to-back and within a
 * window, so A-B alternation is caught), thresholds 4 and 8 for every tool,
 * every tool tracked (custom and MCP tools included) except `pollTools`, and
 * workspace-aware keys. `behavior: { repeatGuard: recommendedRepeatGuard() }`.
 *
 * A function, not a constant: the key remembers the workspace's changes
 * between calls, so each agent needs its own configuration.
 */
export function recommendedRepeatGuard(options: RecommendedRepeatGuardOptions = {}): RepeatGuardConfig {
  const pollTools = options.pollTools ?? []
  const isPollTool = (name: string) => pollTools.some(matcher => typeof matcher === 'string' ? matcher === name : matcher(name) === true)
  return {
    mode: 'both',
    blockThreshold: 4,
    abortThreshold: 8,
    tools: [name => !isPollTool(name)],
    globalCeilingExclude: pollTools,
    normalize: workspaceAwareKey(),
  }
}
