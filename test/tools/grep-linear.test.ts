import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { grep } from '../../src/tools/grep'
import { compileGrepPattern } from '../../src/tools/grep-pattern'
import { harness, tempDirs, workspace } from './file-tools-support'

// grep's patterns come from the model and run on the main thread. On V8's backtracking engine `(a+)+$` against
// 5,000 `a`s would not finish in the age of the universe, and `.*foo.*bar` is quadratic in a minified file's one
// line: either froze the process, abort and timeouts included. These tests would hang, not fail, without the
// linear engine; they check results only.

const tempDir = tempDirs('grep-linear')

describe('grep on patterns that make a backtracking engine explode', () => {
  // Lines are shown cut at GREP_LINE_CHARS; files up to DEFAULT_GREP_MAX_FILE_BYTES (4 MiB) are searched.
  it('answers (a+)+$ and nested quantifiers on long lines', async () => {
    const ws = workspace(tempDir)
    ws.put('long.txt', `${'a'.repeat(5000)}b\n${'a'.repeat(5000)}\n`)
    const h = harness(ws.execution)
    expect(await h.text(grep, { pattern: '(a+)+$' })).toBe(`long.txt:2: ${'a'.repeat(300)}…`)
    expect(await h.text(grep, { pattern: '^(a|a)*c' })).toBe('No matches for /^(a|a)*c/ in the working directory (1 file searched).')
    expect(await h.text(grep, { pattern: '(\\w+\\s?)*;$' })).toBe('No matches for /(\\w+\\s?)*;$/ in the working directory (1 file searched).')
  })

  it('finds .*foo.*bar at the end of a 4 MB minified line', async () => {
    const ws = workspace(tempDir)
    ws.put('bundle.min.js', `${'x=1;'.repeat(900_000)}foo();bar()\n${'y'.repeat(100_000)}\n`)
    const h = harness(ws.execution)
    const found = await h.text(grep, { pattern: '.*foo.*bar' })
    expect(found).toMatch(/^bundle\.min\.js:1: x=1;/)
    expect(found.split('\n')).toHaveLength(1)
  })

  it('refuses lookaround and backreferences with a message that says why', async () => {
    const ws = workspace(tempDir)
    ws.put('a.txt', 'abab\n')
    const h = harness(ws.execution)
    for (const pattern of ['(?=a)b', '(?<!a)b', '(ab)\\1']) {
      const error = await h.error(grep, { pattern })
      expect(error).toContain(`Invalid regular expression /${pattern}/`)
      expect(error).toContain('lookaround and backreferences are not supported')
    }
  })

  it('reads JavaScript escapes the way a JavaScript pattern means them', async () => {
    const ws = workspace(tempDir)
    ws.put('a.txt', 'Alpha\nbeta/gamma\n')
    const h = harness(ws.execution)
    expect(await h.text(grep, { pattern: '\\u0041lpha' })).toBe('a.txt:1: Alpha')
    expect(await h.text(grep, { pattern: 'beta\\/g[^]mma' })).toBe('a.txt:2: beta/gamma')
    expect(await h.text(grep, { pattern: '(?<word>gam)ma$' })).toBe('a.txt:2: beta/gamma')
  })
})

describe('the linear engine agrees with JavaScript on patterns both accept', () => {
  // A small grammar of patterns both engines read alike (no lookaround, no backreferences, no flags).
  const atom = fc.constantFrom('a', 'b', 'ab', '.', '[ab]', '[^a]', '\\d', '\\w', '\\s', '\\bb', '1', ' ')
  const pattern = fc.letrec<{ expr: string, piece: string }>(tie => ({
    piece: fc.oneof(
      { depthSize: 'small' },
      atom,
      fc.tuple(tie('piece'), fc.constantFrom('*', '+', '?', '{1,2}')).map(([inner, quantifier]) => `(?:${inner})${quantifier}`),
      tie('expr').map(inner => `(${inner})`),
    ),
    expr: fc.oneof(
      { depthSize: 'small' },
      fc.array(tie('piece'), { minLength: 1, maxLength: 4 }).map(pieces => pieces.join('')),
      fc.tuple(tie('piece'), tie('piece')).map(([left, right]) => `${left}|${right}`),
    ),
  })).expr
  const anchored = fc.tuple(fc.boolean(), pattern, fc.boolean()).map(([start, body, end]) => `${start ? '^' : ''}${body}${end ? '$' : ''}`)
  const line = fc.string({ unit: fc.constantFrom('a', 'b', '1', ' ', '-'), maxLength: 12 })

  it('finds the same first match as JavaScript for every line', async () => {
    await fc.assert(fc.asyncProperty(anchored, fc.array(line, { maxLength: 8 }), async (source, lines) => {
      const test = await compileGrepPattern(source)
      const reference = new RegExp(source)
      for (const text of lines)
        expect(test(text), `/${source}/ on "${text}"`).toBe(reference.exec(text)?.index ?? -1)
    }), { numRuns: 1500 })
  })

  it('treats a pattern with no special character as a substring', async () => {
    await fc.assert(fc.asyncProperty(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '-', '/', '='), minLength: 1, maxLength: 6 }), line, async (literal, text) => {
      const test = await compileGrepPattern(literal)
      expect(test(text)).toBe(text.indexOf(literal))
    }), { numRuns: 500 })
  })
})
