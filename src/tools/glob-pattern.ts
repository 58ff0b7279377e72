/**
 * Glob patterns for `glob`, `grep` and the write policy, matched in TypeScript
 * over the context's file API with no native dependency. Paths are POSIX,
 * relative, without a leading `./`.
 *
 * `*` and `?` stay within one segment, `**` spans segments (`**\/` may match
 * no directory at all), `[…]` is a set (`[!…]` negated), `{a,b}` picks one of
 * the alternatives. Leading dots are matched like any other character. The
 * matching itself lives in `../text/glob-match.ts`, in time linear in path × pattern.
 */

import { globMatcher } from '../text/glob-match'

export { globMatcher, GlobSyntaxError } from '../text/glob-match'

const MAGIC = /[*?[{]/
const LEADING_DOT_SLASH = /^\.\//

function isMagic(segment: string): boolean {
  return MAGIC.test(segment)
}

export interface GlobParts {
  /** Leading segments without wildcards: where a walk can start. `''` when the first segment has one. */
  base: string
  /** Whether the pattern spans directories (`**`); without it, walks stop at `depth` levels below `base`. */
  recursive: boolean
  /** Segments after `base`. */
  depth: number
  /** Literal segments of the pattern, to let a walk enter an ignored directory the pattern names. */
  literals: ReadonlySet<string>
}

/** Split a pattern into the part a walk can start from and what the walk must match. */
export function globParts(pattern: string): GlobParts {
  const segments = pattern.split('/').filter(segment => segment !== '' && segment !== '.')
  const firstMagic = segments.findIndex(isMagic)
  const baseSegments = firstMagic === -1 ? segments.slice(0, -1) : segments.slice(0, firstMagic)
  const rest = segments.slice(baseSegments.length)
  return {
    base: `${pattern.startsWith('/') ? '/' : ''}${baseSegments.join('/')}`,
    recursive: rest.some(segment => segment.includes('**')),
    depth: rest.length,
    literals: new Set(segments.filter(segment => !isMagic(segment))),
  }
}

/** `./src/*.ts` means `src/*.ts`: walked paths never start with `./`. */
export function stripDotSlash(pattern: string): string {
  return pattern.replace(LEADING_DOT_SLASH, '')
}

/** A test for relative paths. A pattern without `/` is matched against the file name alone, like `rg --glob`. */
export function pathMatcher(pattern: string): (relative: string) => boolean {
  const matches = globMatcher(stripDotSlash(pattern))
  if (!pattern.includes('/'))
    return relative => matches(relative.slice(relative.lastIndexOf('/') + 1))
  return matches
}
