/**
 * How `grep` tests a line against the model's pattern, in time linear in the
 * line whatever the pattern.
 *
 * V8's own engine backtracks: `(a+)+$` takes a second on a line of 24 `a`s
 * and doubles with each one more, and even a plain `.*foo.*bar` is
 * quadratic in the line (a minified file is one line of megabytes). Matching
 * runs on the main thread, so such a search would freeze the whole process,
 * abort and timeouts included. Patterns therefore run on RE2 (the `re2js`
 * port, loaded on the first search that needs it, `../text/re2.ts`), whose automaton visits
 * each character a bounded number of times. Its syntax is the one ripgrep
 * and most code-search tools speak: JavaScript escapes (`\u0041`, `[^]`) are
 * translated, and what needs backtracking (lookaround, backreferences) is
 * refused with a message that says so. A pattern with no special character
 * at all, the most common kind, is a plain substring search.
 */

import type { RE2JS } from 're2js'
import { clipEcho } from '../text/clip-echo'
import { loadRe2 } from '../text/re2'

/** Where the first match in one line starts, or -1 for none. */
export type LineTest = (line: string) => number

/** Any of these makes a pattern more than a literal. */
const REGEX_SYNTAX = /[$()*+.?[\\\]^{|}]/

/** The test for `pattern`; an `Error` for one RE2 cannot compile, naming why. */
export function compileGrepPattern(pattern: string): LineTest {
  if (!REGEX_SYNTAX.test(pattern))
    return line => line.indexOf(pattern)
  const RE2JS = loadRe2()
  if (!RE2JS)
    throw new Error('grep needs the re2js package to run a regular expression, and it could not be loaded; search for a plain string instead.')
  let compiled: RE2JS
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern))
  }
  catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    // RE2's reason quotes the pattern again: both are clipped.
    throw new Error(`Invalid regular expression /${clipEcho(pattern)}/: ${clipEcho(reason, 300)}. grep matches in linear time (RE2 syntax, as in ripgrep), so lookaround and backreferences are not supported; search for a simpler pattern and check the lines yourself.`)
  }
  return (line) => {
    const matcher = compiled.matcher(line)
    return matcher.find() ? matcher.start() : -1
  }
}
