/**
 * Which files a shell command shows in full, for `trackShellReads`. The
 * parser is deliberately narrow: a command is a list of segments joined by
 * `&&` or `;`, an optional leading `cd dir`, then only `cat`, `head`, `tail`,
 * `nl` and `sed -n '…p'` on plain file names. Pipes, redirects, variables,
 * substitutions, globs, `||`, `&` or any other command make the whole command
 * count for nothing: a wrong "read" would let an edit through the guard.
 */

import { pushAll } from '../core/push-all'

export interface ShellReads {
  /** Directory the reads are relative to (from a leading `cd`), if any. */
  cwd?: string
  files: string[]
}

type Token = string

const QUOTED_EXPANSION = /[$`\\]/
/** `-n5`, `-n+5`, `-5`: a line count attached to its flag. */
const ATTACHED_COUNT = /^-(?:n\+?)?\d+$/
type Segment = Token[]

/** Split into segments of words, or `undefined` on any syntax outside the supported subset. */
function tokenize(command: string): Segment[] | undefined {
  let current: Segment = []
  const segments: Segment[] = [current]
  let word: string | undefined
  const endWord = () => {
    if (word !== undefined)
      current.push(word)
    word = undefined
  }
  const endSegment = () => {
    endWord()
    current = []
    segments.push(current)
  }
  for (let i = 0; i < command.length; i++) {
    const char = command[i]
    if (char === ' ' || char === '\t') {
      endWord()
    }
    else if (char === ';' || char === '\n') {
      endSegment()
    }
    else if (char === '&') {
      if (command[i + 1] !== '&')
        return undefined
      i++
      endSegment()
    }
    else if (char === '\'') {
      const close = command.indexOf('\'', i + 1)
      if (close === -1)
        return undefined
      word = (word ?? '') + command.slice(i + 1, close)
      i = close
    }
    else if (char === '"') {
      const close = command.indexOf('"', i + 1)
      const body = close === -1 ? '' : command.slice(i + 1, close)
      // Expansions and escapes inside double quotes are out of scope.
      if (close === -1 || QUOTED_EXPANSION.test(body))
        return undefined
      word = (word ?? '') + body
      i = close
    }
    else if (char === '\\') {
      if (i + 1 >= command.length)
        return undefined
      word = (word ?? '') + command[++i]
    }
    else if ('|<>$`()*?[]{}~#!'.includes(char)) {
      return undefined
    }
    else {
      word = (word ?? '') + char
    }
  }
  endWord()
  return segments.filter(segment => segment.length > 0)
}

/**
 * The words of each `&&` / `;` segment of `command`, or `undefined` when it
 * uses anything outside the plain subset (pipes, redirects, expansions, globs).
 */
export function shellSegments(command: string): string[][] | undefined {
  return tokenize(command)
}

const LINE_COUNT = /^\+?\d+$/

/** The files of a `head` / `tail` segment: `-n N`, `-nN`, `-N`, `-n +N` (tail), or none. */
function headTailFiles(args: Token[]): string[] | undefined {
  const files: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === '-n') {
      if (!LINE_COUNT.test(args[i + 1] ?? ''))
        return undefined
      i++
    }
    else if (ATTACHED_COUNT.test(arg)) {
      continue
    }
    else if (arg.startsWith('-')) {
      return undefined
    }
    else {
      files.push(arg)
    }
  }
  return files
}

const SED_PRINT = /^(?:(?:\d+|\$)(?:,(?:\d+|\$))?)?p$/

function segmentFiles(segment: Segment): string[] | undefined {
  const [name, ...args] = segment
  let files: string[] | undefined
  switch (name) {
    case 'cat':
      files = args.filter(arg => arg !== '-n')
      break
    case 'nl':
      files = args.filter(arg => arg !== '-ba')
      break
    case 'head':
    case 'tail':
      files = headTailFiles(args)
      break
    case 'sed':
      files = args[0] === '-n' && SED_PRINT.test(args[1] ?? '') ? args.slice(2) : undefined
      break
    default:
      return undefined
  }
  if (!files || files.length === 0 || files.some(file => file.startsWith('-')))
    return undefined
  return files
}

/** The files `command` shows, or `undefined` when it is not a plain read the parser understands. */
export function parseShellReads(command: string): ShellReads | undefined {
  const segments = tokenize(command)
  if (!segments || segments.length === 0)
    return undefined
  let cwd: string | undefined
  let rest = segments
  if (segments[0][0] === 'cd') {
    if (segments[0].length !== 2 || segments.length === 1)
      return undefined
    cwd = segments[0][1]
    rest = segments.slice(1)
  }
  const files: string[] = []
  for (const segment of rest) {
    const found = segmentFiles(segment)
    if (!found)
      return undefined
    pushAll(files, found)
  }
  return cwd === undefined ? { files } : { cwd, files }
}
