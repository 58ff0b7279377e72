/**
 * The repeat guard's key for shell commands. Models retrying a stuck command
 * rarely send it byte for byte: they prepend `cd <dir> &&`, add a
 * `; sleep 2` tail to "wait a bit", or toggle `-v` / `-la`. Those spellings
 * run the same thing, so they must extend one streak.
 */

const OPERATORS = ['&&', '||', ';', '|', '&'] as const
const SPACE = /\s/

type Token = { op: string } | { word: string }

/**
 * Split a command into words and control operators, keeping quoted text
 * (and backslash escapes) inside their word verbatim. Runs of whitespace
 * outside quotes separate words and carry no meaning.
 */
function tokenize(command: string): Token[] {
  const tokens: Token[] = []
  let word = ''
  let inWord = false
  let quote: '\'' | '"' | undefined
  const flush = () => {
    if (inWord)
      tokens.push({ word })
    word = ''
    inWord = false
  }
  for (let i = 0; i < command.length; i++) {
    const char = command[i]
    if (quote) {
      word += char
      if (char === '\\' && quote === '"' && i + 1 < command.length)
        word += command[++i]
      else if (char === quote)
        quote = undefined
      continue
    }
    if (char === '\'' || char === '"') {
      quote = char
      word += char
      inWord = true
      continue
    }
    if (char === '\\' && i + 1 < command.length) {
      word += char + command[++i]
      inWord = true
      continue
    }
    if (SPACE.test(char)) {
      flush()
      continue
    }
    const op = OPERATORS.find(candidate => command.startsWith(candidate, i))
    if (op) {
      flush()
      tokens.push({ op })
      i += op.length - 1
      continue
    }
    word += char
    inWord = true
  }
  flush()
  return tokens
}

/** One simple command and the operator that follows it (none for the last). */
interface Segment {
  words: string[]
  op?: string
}

function segments(tokens: readonly Token[]): Segment[] {
  const out: Segment[] = []
  let current: Segment = { words: [] }
  out.push(current)
  for (const token of tokens) {
    if ('op' in token) {
      current.op = token.op
      current = { words: [] }
      out.push(current)
    }
    else {
      current.words.push(token.word)
    }
  }
  return out.filter(segment => segment.words.length > 0 || segment.op !== undefined)
}

const SHORT_FLAG = /^-[A-Z0-9]+$/i
const DURATION = /^\d+(?:\.\d+)?[smhd]?$/

function isCd(segment: Segment): boolean {
  return segment.words[0] === 'cd' && segment.words.length <= 2 && (segment.op === '&&' || segment.op === ';')
}

function isSleep(segment: Segment): boolean {
  return segment.words[0] === 'sleep' && segment.words.length >= 2 && segment.words.slice(1).every(word => DURATION.test(word))
}

/**
 * The canonical form of a shell command: whitespace collapsed, leading
 * `cd <dir> &&` / `cd <dir>;` prefixes dropped, leading and trailing
 * `sleep N` segments dropped (`& sleep 5;`, `; sleep 2`, `sleep 1 &&`), and
 * short flags (`-la`, `-n`, `-20`) removed. Long flags, arguments, quoted
 * text and the operators between the remaining commands are kept, so
 * commands that do different things keep different keys. A command that is
 * nothing but a `cd` or a `sleep` keeps that segment.
 */
export function canonicalShellCommand(command: string): string {
  const all = segments(tokenize(command))
  // The kept segments are all[start, end): moving the bounds, not slicing once per dropped segment, keeps a
  // command of 40,000 `cd a &&` linear (slicing each time took 27 s for 320 KB).
  let start = 0
  let end = all.length
  while (end - start > 1 && isCd(all[start]))
    start++
  while (end - start > 1 && isSleep(all[start]))
    start++
  while (end - start > 1 && isSleep(all[end - 1]))
    end--
  // A dangling operator left by a dropped tail (`make & sleep 5;`) says nothing about what ran.
  if (end > start && all[end - 1].words.length === 0)
    end--
  const parts = all.slice(start, end)
  return parts.map((segment, index) => {
    const words = segment.words.filter((word, at) => at === 0 || !SHORT_FLAG.test(word))
    const op = index < parts.length - 1 ? segment.op : undefined
    return op ? `${words.join(' ')} ${op}` : words.join(' ')
  }).join(' ')
}
