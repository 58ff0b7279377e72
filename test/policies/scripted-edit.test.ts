import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isScriptedEdit } from '../../src/policies/scripted-edit'
import { classifyShellCommand } from '../../src/policies/shell-tool-nudges'

// The scripted-edit check of `shellToolNudges` reads a command in linear time and says what the patterns it
// replaced said: those patterns are kept here as the reference, on commands short enough for them.

const REFERENCE = {
  sed: /(?:^|[\s;&|(])sed\s(?:[^\n;&|]*?\s)?(?:-[A-Za-hj-z]*i\S*|--in-place\S*)(?=\s|$)/,
  perl: /(?:^|[\s;&|(])perl\s(?:[^\n;&|]*?\s)?-[A-Za-hj-z]*i\S*(?=\s|$)/,
  python: /(?:^|[\s;&|(])python[\d.]*(?=\s|$)/,
  pythonWrite: /\.write\(|\.write_text\(|open\([^)]*,\s*(?:mode\s*=\s*)?['"][wax]b?\+?['"]/,
  cat: /(?:^|[\s;&|(])cat\s*(?:>>?\s*[^\s<>|;&]+\s*<<|<<-?\s*['"]?\w+['"]?\s*>>?\s*[^\s<>|;&]+)/,
  tee: /(?:^|[\s;&|(])tee\s+(?:-a\s+)?[^\s<>|;&]+\s*<</,
}

function referenceIsScriptedEdit(command: string): boolean {
  return REFERENCE.sed.test(command)
    || REFERENCE.perl.test(command)
    || (REFERENCE.python.test(command) && REFERENCE.pythonWrite.test(command))
    || REFERENCE.cat.test(command)
    || REFERENCE.tee.test(command)
}

// Words and separators the patterns care about, weighted and arranged so that many random commands are edits
// and the others come close: an option after a line end, `(sed`, `-i;`, a `)` before the comma, `mode =`.
const blank = fc.constantFrom(' ', ' ', '  ', '\t', '\n', '\u00A0')
const name = fc.constantFrom('sed', 'perl', 'python3', 'python', 'cat', 'tee', '(sed', 'python3.12')
const option = fc.constantFrom('-i', '-ni', '-pi', '-e', '--in-place', '-i.bak', '-a', '-n', '-x', '--in-place=.b', '-i;')
const other = fc.constantFrom(
  ';',
  '&',
  '|',
  '(',
  ')',
  'x',
  'a.ts',
  '>',
  '>>',
  '<<',
  '<<-',
  'EOF',
  '\'EOF\'',
  '"',
  'open(',
  ',',
  ', ',
  '\'w\'',
  '"a"',
  '\'r\'',
  'mode',
  '=',
  '.write(',
  '.write_text(',
  'wb',
  '+',
)
const piece = fc.oneof({ weight: 4, arbitrary: blank }, { weight: 2, arbitrary: name }, { weight: 2, arbitrary: option }, { weight: 3, arbitrary: other })
const pieces = (maxLength: number) => fc.array(piece, { maxLength }).map(list => list.join(''))
// Random pieces, or a command name followed by a few pieces and then an option, or Python opening a file.
const command = fc.oneof(
  pieces(24),
  fc.tuple(pieces(4), name, blank, pieces(4), option, pieces(4)).map(parts => parts.join('')),
  fc.tuple(pieces(3), name, blank, pieces(3), fc.constantFrom('open(', 'open(\'a\''), pieces(3), fc.constantFrom(',', ', '), pieces(2), fc.constantFrom('\'w\'', '"ab+"', '\'r\''), pieces(2)).map(parts => parts.join('')),
)

describe('isScriptedEdit', () => {
  it('says what the patterns it replaced said, on any command', () => {
    let edits = 0
    fc.assert(fc.property(command, (text) => {
      const expected = referenceIsScriptedEdit(text)
      expect(isScriptedEdit(text)).toBe(expected)
      if (expected)
        edits++
    }), { numRuns: 5_000 })
    // Both answers were seen often. About one command in nine is an edit, so a draw of 5,000 lands near
    // 550 with a spread of about 22; the bound sits far enough below that only a broken generator trips it.
    expect(edits).toBeGreaterThan(250)
    expect(edits).toBeLessThan(4_500)
  })

  it('reads commands of hundreds of KB built to make those patterns rescan, in linear time', () => {
    // Each of these took the replaced patterns seconds at 150 KB, and minutes at this size.
    const size = 600_000
    const hostile = [
      'sed '.repeat(size / 4),
      'perl '.repeat(size / 5),
      `python x ${'open('.repeat(size / 5)}`,
      `python x ${'open(a,'.repeat(size / 7)}`,
      `sed ${'a '.repeat(size / 2)}`,
    ]
    for (const text of hostile)
      expect(classifyShellCommand(text)).toBeUndefined()
    // The same shapes, with the edit at the very end, are still found.
    expect(classifyShellCommand(`${'sed '.repeat(size / 4)}-i`)).toBe('edit')
    expect(classifyShellCommand(`python x ${'open('.repeat(size / 5)}a, 'w')`)).toBe('edit')
  }, 60_000)
})
