import type { ExecutionContext } from '../../src/contexts/types'
import { readFileSync, statSync, truncateSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createEditTool, edit } from '../../src/tools/edit'
import { EDIT_WORK_BUDGET, MULTI_EDIT_MAX_EDITS } from '../../src/tools/edit-core'
import { applyEdit } from '../../src/tools/edit-match'
import { nearestMatch } from '../../src/tools/edit-preview'
import { DEFAULT_READ_MAX_FILE_BYTES } from '../../src/tools/file-limits'
import { multiEdit } from '../../src/tools/multi-edit'
import { harness, tempDirs, workspace } from './file-tools-support'

// Every argument of edit and multi_edit comes from the model, and so does the file (it can write one first).
// Before these fixes: the line numbers of the matches were found by rescanning the file from its start for
// each match (a one-character old_string in a 400 KB file took minutes), V8's indexOf costs text × needle on
// periodic text (a 200 KB old_string against 4 MB of `abab…` runs: over a minute), the closest-text preview
// of a miss compared every window at full cost (minutes on a big file) and printed whole lines (megabytes of
// a minified file), a replace_all could build gigabytes, a file of any size was read whole, and a batch of
// edits had no bound. Without the fixes these tests hang past the test timeout or fail their assertions.

const tempDir = tempDirs('edit-hostile')
const { dir, execution, put } = workspace(tempDir)
const onDisk = (relative: string) => readFileSync(join(dir, relative), 'utf8')

/** A file of `size` bytes that starts with `head` and is a hole after it: no disk space, no write time. */
function sparseFile(relative: string, head: string, size: number): void {
  truncateSync(put(relative, head), size)
}

describe('edit: sizes from outside are capped before the work', () => {
  it('refuses a file over 32 MiB from its stat, before reading a byte of it', async () => {
    sparseFile('huge.log', `hello\n${'text line\n'.repeat(1000)}`, DEFAULT_READ_MAX_FILE_BYTES + 1024 * 1024)
    let reads = 0
    const counting: ExecutionContext = { ...execution, readFile: (path) => {
      reads++
      return execution.readFile(path)
    } }
    const h = harness(counting as typeof execution)
    const message = await h.error(edit, { path: 'huge.log', old_string: 'hello', new_string: 'bye' })
    expect(message).toBe('huge.log is too large to edit (33.0 MiB, limit 32.0 MiB). Change it with a shell command (`sed`, a script) instead.')
    expect(reads).toBe(0)
    expect(h.outcomes).toEqual(['failed'])
    expect(statSync(join(dir, 'huge.log')).size).toBe(DEFAULT_READ_MAX_FILE_BYTES + 1024 * 1024)
  })

  it('maxFileBytes sets the cap', async () => {
    put('small.txt', 'a'.repeat(2000))
    const h = harness(execution)
    expect(await h.error(createEditTool({ maxFileBytes: 1000 }), { path: 'small.txt', old_string: 'a', new_string: 'b', replace_all: true }))
      .toBe('small.txt is too large to edit (2.0 KiB, limit 1000 B). Change it with a shell command (`sed`, a script) instead.')
  })

  it('refuses a replace_all whose result would pass the cap, from the count, before building it', async () => {
    // 512 Ki one-character matches × 100 characters: 50 MiB, more than an edited file may be.
    put('grow.txt', 'a'.repeat(512 * 1024))
    const h = harness(execution)
    const message = await h.error(edit, { path: 'grow.txt', old_string: 'a', new_string: 'b'.repeat(100), replace_all: true })
    expect(message).toBe('Replacing 524288 occurrences would make grow.txt 50.0 MiB, over the 32.0 MiB limit of edited files; nothing was changed. Make the change with a shell command (`sed`, a script) instead.')
    expect(onDisk('grow.txt')).toBe('a'.repeat(512 * 1024))
  })

  it('counts the cap in UTF-8 bytes, what lands on disk', async () => {
    put('wide.txt', 'a'.repeat(100))
    const h = harness(execution)
    // 100 × 'é' is 200 bytes: over a 150-byte cap, though only 100 characters.
    expect(await h.error(createEditTool({ maxFileBytes: 150 }), { path: 'wide.txt', old_string: 'a', new_string: 'é', replace_all: true }))
      .toMatch(/^Replacing 100 occurrences would make wide\.txt 200 B, over the 150 B limit/)
    expect(await h.text(createEditTool({ maxFileBytes: 200 }), { path: 'wide.txt', old_string: 'a', new_string: 'é', replace_all: true }))
      .toBe('Edited wide.txt: 100 replacements.')
    expect(onDisk('wide.txt')).toBe('é'.repeat(100))
  })

  it('replaces two million occurrences in one linear pass', async () => {
    put('many.txt', `${'ab'.repeat(1_000_000)}\n${'x\n'.repeat(1_000_000)}`)
    const h = harness(execution)
    expect(await h.text(edit, { path: 'many.txt', old_string: 'a', new_string: '', replace_all: true })).toBe('Edited many.txt: 1000000 replacements.')
    expect(await h.text(edit, { path: 'many.txt', old_string: 'x\n', new_string: 'yz\n', replace_all: true })).toBe('Edited many.txt: 1000000 replacements.')
    const text = onDisk('many.txt')
    expect(text.length).toBe(1_000_001 + 3_000_000)
    expect(text.startsWith(`${'b'.repeat(1_000_000)}\nyz\n`)).toBe(true)
    expect(text.endsWith('yz\nyz\n')).toBe(true)
  })
})

describe('edit: the error results stay short', () => {
  it('an ambiguous one-character old_string in 200,000 lines lists the first 20 lines and counts the rest', async () => {
    put('lines.txt', 'x\n'.repeat(200_000))
    const h = harness(execution)
    const message = await h.error(edit, { path: 'lines.txt', old_string: 'x', new_string: 'y' })
    const lines = Array.from({ length: 20 }, (_, i) => i + 1).join(', ')
    expect(message).toBe(`old_string occurs 200000 times in lines.txt (lines ${lines}, … (199980 more)). Include more surrounding lines to make it unique, or set replace_all: true to replace every occurrence.`)
  })

  it('a 200 KB periodic old_string against 4 MB of periodic text is searched in linear time; the preview clips its line', async () => {
    // V8's indexOf takes text × needle here (over a minute); the search is KMP past the needle's first characters.
    put('periodic.txt', `${'ab'.repeat(100_000)}c\n`.repeat(20))
    const h = harness(execution)
    const message = await h.error(edit, { path: 'periodic.txt', old_string: 'ab'.repeat(100_001), new_string: 'x' })
    expect(message).toMatch(/^old_string was not found in periodic\.txt\. The closest text is lines 1-1 \(100% similar\):\n1\t(?:ab){250}… \(199501 more characters on this line\)\nCopy old_string exactly/)
    expect(message.length).toBeLessThan(1000)
  })

  it('a long exact old_string is found at its place among near misses', async () => {
    const block = 'ab'.repeat(5_000)
    put('near-misses.txt', `${`${block}c\n`.repeat(50)}${block}ab\n${`${block}c\n`.repeat(50)}`)
    const h = harness(execution)
    expect(await h.text(edit, { path: 'near-misses.txt', old_string: `${block}ab\n`, new_string: 'found\n' })).toBe('Edited near-misses.txt: 1 replacement.')
    expect(onDisk('near-misses.txt')).toBe(`${`${block}c\n`.repeat(50)}found\n${`${block}c\n`.repeat(50)}`)
  })
})

describe('multi_edit: the batch is bounded', () => {
  it(`refuses more than ${MULTI_EDIT_MAX_EDITS} edits before reading the file`, async () => {
    put('batch.txt', 'a')
    const h = harness(execution)
    const edits = Array.from({ length: 100_000 }, (_, i) => i % 2 === 0 ? { old_string: 'a', new_string: 'b' } : { old_string: 'b', new_string: 'a' })
    expect(await h.error(multiEdit, { path: 'batch.txt', edits }))
      .toBe(`Refused: multi_edit takes at most ${MULTI_EDIT_MAX_EDITS} edits per call, and this one has 100000. Nothing was read or written; split the edits into several calls.`)
    expect(onDisk('batch.txt')).toBe('a')
  })

  it('refuses a batch that would search more than the work budget (edits × file length)', async () => {
    const length = 1024 * 1024
    put('work.txt', `${'z'.repeat(length - 1)}a`)
    const count = Math.floor(EDIT_WORK_BUDGET / length) + 1
    const edits = Array.from({ length: count }, (_, i) => i % 2 === 0 ? { old_string: 'a', new_string: 'b' } : { old_string: 'b', new_string: 'a' })
    const h = harness(execution)
    expect(await h.error(multiEdit, { path: 'work.txt', edits }))
      .toBe(`Refused: ${count} edits on work.txt (${length} characters) are more than one call searches: the file's length times the number of edits, plus the replacements made, may be at most ${EDIT_WORK_BUDGET} characters. `
        + `Nothing was written; split the edits into calls of at most ${count - 2}, or make the change with a shell command.`)
    // That many fit.
    expect(await h.text(multiEdit, { path: 'work.txt', edits: edits.slice(0, count - 2) })).toBe(`Edited work.txt: ${count - 2} edits applied (${count - 2} replacements).`)
  })

  it('counts the work as the file grows: an early replace_all cannot make the later edits unbounded', async () => {
    put('growing.txt', `MARK${'a'.repeat(1023)}`)
    // The first edit makes the file a mebibyte long; 300 more edits of it would search 300 Mi characters.
    const edits = [
      { old_string: 'a', new_string: 'b'.repeat(1024), replace_all: true },
      ...Array.from({ length: 300 }, (_, i) => ({ old_string: i % 2 === 0 ? 'MARK' : 'KRAM', new_string: i % 2 === 0 ? 'KRAM' : 'MARK' })),
    ]
    const message = await harness(execution).error(multiEdit, { path: 'growing.txt', edits })
    expect(message).toMatch(/^Refused: 301 edits on growing\.txt \(1047556 characters\) are more than one call searches/)
    expect(onDisk('growing.txt')).toBe(`MARK${'a'.repeat(1023)}`)
  })

  it('counts each replacement too: a batch of dense replace_all edits is bounded by what it replaces', async () => {
    put('dense.txt', 'ab'.repeat(256 * 1024))
    // Each edit replaces 256 Ki occurrences in a 512 KiB file: cheap to search, dear to rebuild.
    const edits = Array.from({ length: 100 }, (_, i) => i % 2 === 0 ? { old_string: 'a', new_string: 'c', replace_all: true } : { old_string: 'c', new_string: 'a', replace_all: true })
    const message = await harness(execution).error(multiEdit, { path: 'dense.txt', edits })
    expect(message).toMatch(/^Refused: 100 edits on dense\.txt \(524288 characters\) are more than one call searches/)
    expect(onDisk('dense.txt')).toBe('ab'.repeat(256 * 1024))
  })
})

describe('the search behind edit', () => {
  it('finds what indexOf finds, long needles (the KMP path) included', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n'), maxLength: 400 })
    fc.assert(fc.property(text, fc.integer({ min: 1, max: 80 }), fc.nat(), (content, length, at) => {
      const start = content.length === 0 ? 0 : at % content.length
      const needle = content.slice(start, start + length) || 'ab'
      const result = applyEdit(content, { old_string: needle, new_string: '<>', replace_all: true })
      const pieces = content.split(needle)
      if (pieces.length === 1)
        return result.ok === false && result.reason === 'not-found'
      return result.ok && result.count === pieces.length - 1 && result.content === pieces.join('<>')
    }), { numRuns: 2000 })
  })

  it('nearestMatch on a big file of long random lines stops at its work budget with the best window so far', () => {
    // 4,000 lines of 4,000 random CJK characters and a 50-line needle: every comparison costs a line's length,
    // and scoring all 200,000 window lines took about two minutes.
    let seed = 7
    const random = () => {
      seed = (seed * 48271) % 0x7FFFFFFF
      return seed
    }
    const line = () => {
      const units = new Uint16Array(4000)
      for (let i = 0; i < units.length; i++)
        units[i] = 0x4E00 + random() % 20_000
      return new TextDecoder('utf-16le').decode(units)
    }
    const content = Array.from({ length: 4000 }, line).join('\n')
    const needle = Array.from({ length: 50 }, line).join('\n')
    const near = nearestMatch(content, needle)
    expect(near).toBeDefined()
    expect(near!.lines).toHaveLength(50)
    expect(near!.score).toBeGreaterThanOrEqual(0)
    expect(near!.score).toBeLessThan(0.01)
  })

  it('nearestMatch on a file too long to score every window still finds the window far down', () => {
    // 300,000 lines and a 2-line needle: only windows around the best matches of the needle's longest line are scored.
    const lines = Array.from({ length: 300_000 }, (_, i) => `const value${i} = compute(${i})`)
    lines[280_000] = 'function targetFunction(alpha, beta) {'
    lines[280_001] = '  return alpha * beta + offset'
    const near = nearestMatch(lines.join('\n'), 'function targetFunction(alpha, beta) {\n  return alpha * beta + ofset')
    expect(near).toMatchObject({ startLine: 280_001, endLine: 280_002, lines: lines.slice(280_000, 280_002) })
    expect(near!.score).toBeGreaterThan(0.9)
  })

  it('nearestMatch on 4 Mi empty lines', () => {
    expect(nearestMatch('\n'.repeat(4 * 1024 * 1024), 'some text\nthat is not there')).toMatchObject({ startLine: 1, endLine: 2, score: 0, lines: ['', ''] })
  })
})
