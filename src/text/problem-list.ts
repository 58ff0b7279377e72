/**
 * Joining validation problems into the one message a model reads back. A
 * schema may be huge (an `enum` of 100,000 values, hundreds of properties), and
 * repeating all of it in every repair message would cost the model's window
 * more than the answer it is asked to fix, so the list and each line are capped.
 */

import { truncateText } from './truncate'

/** Most problems one message lists; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20

/** Longest one problem line may be, in UTF-16 units. */
export const MAX_PROBLEM_LENGTH = 500

/** Most values of an `enum` (or similar list) a problem line spells out. */
export const MAX_LISTED_OPTIONS = 20

/** Longest one spelled-out option may be. */
const MAX_OPTION_LENGTH = 80

/** The problems, capped in count and length, joined with `; `. */
export function joinProblems(problems: readonly string[]): string {
  const shown = problems.slice(0, MAX_LISTED_PROBLEMS).map(capProblem)
  const hidden = problems.length - shown.length
  if (hidden > 0)
    shown.push(`and ${hidden} more problem${hidden === 1 ? '' : 's'}`)
  return shown.join('; ')
}

/** One problem line, cut (never inside a code point) with a mark when over the cap. */
export function capProblem(problem: string): string {
  return problem.length <= MAX_PROBLEM_LENGTH ? problem : `${truncateText(problem, MAX_PROBLEM_LENGTH - 1)}…`
}

/** `"a", "b", "c"`, or the first few followed by how many there are in all. */
export function listOptions(options: readonly unknown[]): string {
  const shown = options.slice(0, MAX_LISTED_OPTIONS).map((option) => {
    const text = JSON.stringify(option) ?? String(option)
    return text.length <= MAX_OPTION_LENGTH ? text : `${truncateText(text, MAX_OPTION_LENGTH - 1)}…`
  })
  return options.length > shown.length
    ? `${shown.join(', ')}, … (${options.length} options in all)`
    : shown.join(', ')
}
