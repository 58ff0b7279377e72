import { Buffer } from 'node:buffer'
import { readFileSync, writeFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { edit } from '../../src/tools/edit'
import { applyEdit } from '../../src/tools/edit-match'
import { multiEdit } from '../../src/tools/multi-edit'
import { readFile } from '../../src/tools/read-file'
import { fileBehavior, harness, newSession, tempDirs, workspace } from './file-tools-support'

// A file with CRLF on some lines and LF on others (a Windows file a Unix tool appended to, a patch applied with
// the wrong settings) could not be edited across lines at all: the model copies with LF throughout, the CRLF
// recovery only helps a file that is CRLF throughout, and every retry failed the same way. Such an old_string
// is now matched with line endings ignored, and each line of the replacement keeps the ending of the line it
// replaces.

const tempDir = tempDirs('edit-mixed-endings')
const { execution, put } = workspace(tempDir)
const MIXED_NOTE = '(The file mixes CRLF and LF line endings; old_string was matched with line endings ignored, and each line of new_string was written with the ending of the line it replaces.)'

describe('edit on a file that mixes CRLF and LF', () => {
  it('matches a multi-line old_string written with LF, keeping each line\'s ending', async () => {
    const path = put('mixed.txt', 'one\r\ntwo\nthree\r\nfour\n')
    const h = harness(execution)
    const out = await h.text(edit, { path: 'mixed.txt', old_string: 'one\ntwo\nthree', new_string: 'uno\ndos\ntres\nextra' })
    expect(out).toBe(`Edited mixed.txt: 1 replacement.\n${MIXED_NOTE}`)
    // Breaks 1 and 2 take the endings of the lines they replace; the extra line takes the last one's.
    expect(readFileSync(path, 'utf8')).toBe('uno\r\ndos\ntres\nextra\r\nfour\n')
    expect(h.outcomes).toEqual(['edited'])
  })

  it('matches an old_string copied with the wrong endings line by line, and one with read_file\'s line numbers', async () => {
    const path = put('numbered.txt', 'a\nb\r\nc\nd\r\n')
    const h = harness(execution)
    await h.text(edit, { path: 'numbered.txt', old_string: 'a\r\nb\nc', new_string: 'A\nB\nC' })
    expect(readFileSync(path, 'utf8')).toBe('A\nB\r\nC\nd\r\n')
    await h.text(edit, { path: 'numbered.txt', old_string: '2\tB\n3\tC', new_string: '2\tbee\n3\tsea' })
    expect(readFileSync(path, 'utf8')).toBe('A\nbee\r\nsea\nd\r\n')
  })

  it('reports an ambiguity with its lines, replaces every occurrence with replace_all, and multi_edit does the same', async () => {
    const path = put('twice.txt', 'x\r\ny\nz\nx\ny\r\nz\n')
    const h = harness(execution)
    const message = await h.error(edit, { path: 'twice.txt', old_string: 'x\ny\nz', new_string: 'q' })
    expect(message).toMatch(/^old_string occurs 2 times in twice\.txt \(lines 1, 4\)\./)
    await h.text(edit, { path: 'twice.txt', old_string: 'x\ny\nz', new_string: 'X\nY\nZ', replace_all: true })
    expect(readFileSync(path, 'utf8')).toBe('X\r\nY\nZ\nX\nY\r\nZ\n')
    const out = await h.text(multiEdit, { path: 'twice.txt', edits: [{ old_string: 'Y\nZ\nX\nY\nZ', new_string: 'middle' }] })
    expect(out).toContain(MIXED_NOTE)
    expect(readFileSync(path, 'utf8')).toBe('X\r\nmiddle\n')
  })

  it('is a recovery, so a file that changed since it was read is refused rather than edited', async () => {
    const path = put('drifted.txt', 'one\ntwo\r\n')
    const h = harness(execution, { session: await newSession(), behavior: fileBehavior({ requireReadBeforeEdit: true }) })
    await h.text(readFile, { path: 'drifted.txt' })
    writeFileSync(path, 'one\r\ntwo\nthree\n')
    const message = await h.error(edit, { path: 'drifted.txt', old_string: 'one\ntwo\nthree', new_string: 'x' })
    expect(message).toMatch(/^Refused: drifted\.txt has changed since you last read it/)
    expect(readFileSync(path, 'utf8')).toBe('one\r\ntwo\nthree\n')
  })

  it('still says not found, with no word of line endings, when the text differs otherwise', async () => {
    put('other.txt', 'one\r\ntwo\nthree\r\n')
    const message = await harness(execution).error(edit, { path: 'other.txt', old_string: 'one\ntoo\nthree', new_string: 'x' })
    expect(message).toMatch(/^old_string was not found in other\.txt\. The closest text/)
    expect(message).not.toContain('line endings')
  })

  it('counts the size the replacement will have before building it', () => {
    const content = 'ab\r\ncd\nab\r\ncd\n'
    const result = applyEdit(content, { old_string: 'ab\ncd', new_string: 'long\nlonger\nlongest', replace_all: true }, { contentBytes: content.length, maxBytes: 40 })
    expect(result).toEqual({ ok: false, reason: 'too-large', count: 2, bytes: 14 + 2 * (19 + 2 - 6) })
  })
})

describe('the line-ending-blind match', () => {
  const lf = (text: string) => text.replaceAll('\r\n', '\n')

  it('agrees with a search of the LF text, reports the bytes it writes, and keeps every line outside the matches', () => {
    const unit = fc.constantFrom('a', 'b', '\n', '\r\n', 'é')
    const text = fc.array(unit, { maxLength: 120 }).map(units => units.join(''))
    fc.assert(fc.property(text, fc.nat(), fc.integer({ min: 2, max: 12 }), fc.array(fc.constantFrom('x', '\n', 'ü'), { maxLength: 8 }), (content, at, length, replacementUnits) => {
      const plain = lf(content)
      const start = plain.length === 0 ? 0 : at % plain.length
      const needle = plain.slice(start, start + length)
      const replacement = replacementUnits.join('')
      if (!needle.includes('\n') || content.includes(needle) || content.includes(needle.replaceAll('\n', '\r\n')) || !content.includes('\r\n'))
        return true
      const result = applyEdit(content, { old_string: needle, new_string: replacement, replace_all: true })
      if (!result.ok)
        return false
      const pieces = plain.split(needle)
      return result.mode === 'mixed-line-endings'
        && result.count === pieces.length - 1
        && lf(result.content) === pieces.join(replacement)
        && result.bytes === Buffer.byteLength(result.content)
    }), { numRuns: 3000 })
  })

  it('stays linear on a large file with a periodic needle and a million occurrences', () => {
    // 1 Mi lines alternating CRLF and LF: a search or position mapping that rescanned from the start per
    // occurrence would not finish.
    const content = 'ab\r\nab\n'.repeat(512 * 1024)
    const result = applyEdit(content, { old_string: 'ab\nab\n', new_string: 'c\nd\n', replace_all: true })
    expect(result.ok && result.count).toBe(512 * 1024)
    expect(result.ok && result.content.slice(0, 15)).toBe('c\r\nd\nc\r\nd\nc\r\nd\n')
    const long = applyEdit(content, { old_string: `${'ab\nab\n'.repeat(40)}x`, new_string: '' })
    expect(long).toEqual({ ok: false, reason: 'not-found' })
  })
})
