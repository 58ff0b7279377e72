/**
 * Glob patterns compiled to regular expressions, so `glob`, `grep` and the
 * write policy match paths in TypeScript over the context's file API with no
 * native dependency. Paths are POSIX, relative, without a leading `./`.
 *
 * `*` and `?` stay within one segment, `**` spans segments (`**\/` may match
 * no directory at all), `[…]` is a set (`[!…]` negated), `{a,b}` picks one of
 * the alternatives. Leading dots are matched like any other character.
 */

const REGEX_SPECIAL = /[$()*+.?[\\\]^{|}]/
const MAGIC = /[*?[{]/
const LEADING_DOT_SLASH = /^\.\//

export class GlobSyntaxError extends Error {
  override name = 'GlobSyntaxError'
}

export function globToRegExp(pattern: string): RegExp {
  let source = ''
  let braces = 0
  let i = 0
  while (i < pattern.length) {
    const char = pattern[i]
    if (char === '*') {
      if (pattern[i + 1] === '*') {
        const atSegmentStart = i === 0 || pattern[i - 1] === '/'
        const next = i + 2
        if (atSegmentStart && pattern[next] === '/') {
          source += '(?:[^/]*/)*'
          i = next + 1
          continue
        }
        if (atSegmentStart && next === pattern.length) {
          source += '.*'
          i = next
          continue
        }
        // `a**b` inside a segment means no more than `a*b`.
        source += '[^/]*'
        i = next
        continue
      }
      source += '[^/]*'
    }
    else if (char === '?') {
      source += '[^/]'
    }
    else if (char === '[') {
      const close = pattern.indexOf(']', i + 2)
      if (close === -1) {
        source += '\\['
      }
      else {
        let body = pattern.slice(i + 1, close)
        if (body.startsWith('!'))
          body = `^${body.slice(1)}`
        source += `[${body.replaceAll('\\', '\\\\')}]`
        i = close
      }
    }
    else if (char === '{') {
      braces++
      source += '(?:'
    }
    else if (char === '}' && braces > 0) {
      braces--
      source += ')'
    }
    else if (char === ',' && braces > 0) {
      source += '|'
    }
    else if (char === '\\' && i + 1 < pattern.length) {
      i++
      source += escapeChar(pattern[i])
    }
    else {
      source += escapeChar(char)
    }
    i++
  }
  if (braces > 0)
    throw new GlobSyntaxError(`Invalid glob "${pattern}": a "{" is never closed.`)
  try {
    return new RegExp(`^${source}$`)
  }
  catch (error) {
    throw new GlobSyntaxError(`Invalid glob "${pattern}": ${error instanceof Error ? error.message : String(error)}`)
  }
}

function escapeChar(char: string): string {
  return REGEX_SPECIAL.test(char) ? `\\${char}` : char
}

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
  const regex = globToRegExp(stripDotSlash(pattern))
  if (!pattern.includes('/'))
    return relative => regex.test(relative.slice(relative.lastIndexOf('/') + 1))
  return relative => regex.test(relative)
}
