import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { edit } from '../../src/tools/edit'
import { applyEdit, stripLineNumbers } from '../../src/tools/edit-match'
import { nearestMatch } from '../../src/tools/edit-preview'
import { multiEdit } from '../../src/tools/multi-edit'
import { harness, tempDirs, workspace } from './file-tools-support'

const tempDir = tempDirs('edit')
const { dir, execution, put } = workspace(tempDir)
const onDisk = (relative: string) => readFileSync(join(dir, relative), 'utf8')

const SOURCE = [
  'export function add(a, b) {',
  '  return a - b',
  '}',
  '',
  'export function mul(a, b) {',
  '  return a * b',
  '}',
  '',
].join('\n')

describe('edit', () => {
  it('replaces a unique exact match and reports edited', async () => {
    put('math.js', SOURCE)
    const h = harness(execution)
    expect(await h.text(edit, { path: 'math.js', old_string: '  return a - b', new_string: '  return a + b' })).toBe('Edited math.js: 1 replacement.')
    expect(onDisk('math.js')).toBe(SOURCE.replace('a - b', 'a + b'))
    expect(h.outcomes).toEqual(['edited'])
  })

  it('refuses an ambiguous match, naming the lines, and leaves the file alone', async () => {
    put('dup.js', SOURCE)
    const h = harness(execution)
    const message = await h.error(edit, { path: 'dup.js', old_string: '(a, b) {', new_string: '(x, y) {' })
    expect(message).toBe('old_string occurs 2 times in dup.js (lines 1, 5). Include more surrounding lines to make it unique, or set replace_all: true to replace every occurrence.')
    expect(onDisk('dup.js')).toBe(SOURCE)
    expect(h.outcomes).toEqual(['failed'])
  })

  it('replace_all replaces every occurrence', async () => {
    put('all.js', SOURCE)
    const h = harness(execution)
    expect(await h.text(edit, { path: 'all.js', old_string: '(a, b)', new_string: '(x, y)', replace_all: true })).toBe('Edited all.js: 2 replacements.')
    expect(onDisk('all.js')).toBe(SOURCE.replaceAll('(a, b)', '(x, y)'))
  })

  it('on a miss, shows the nearest match with line numbers', async () => {
    put('near.js', SOURCE)
    const h = harness(execution)
    const message = await h.error(edit, { path: 'near.js', old_string: 'export function mul(a, b) {\n    return a * b\n}', new_string: 'x' })
    expect(message).toMatch(/^old_string was not found in near\.js\. The closest text is lines 5-7 \(\d+% similar\):\n5\texport function mul\(a, b\) \{\n6\t {2}return a \* b\n7\t\}\nCopy old_string exactly/)
    expect(h.outcomes).toEqual(['failed'])
  })

  it('says so when nothing resembles old_string', async () => {
    put('far.js', SOURCE)
    expect(await harness(execution).error(edit, { path: 'far.js', old_string: 'zzzz qqqq', new_string: 'x' })).toBe('old_string was not found in far.js. Nothing in the file resembles it; read the file again to see its current content.')
  })

  it('strips cat -n prefixes from old_string and new_string when every line has one', async () => {
    put('numbered.js', SOURCE)
    const h = harness(execution)
    const out = await h.text(edit, { path: 'numbered.js', old_string: '1\texport function add(a, b) {\n2\t  return a - b', new_string: '1\texport function add(a, b) {\n2\t  return a + b' })
    expect(out).toBe('Edited numbered.js: 1 replacement.\n(Line-number prefixes copied from read_file output were removed before matching.)')
    expect(onDisk('numbered.js')).toBe(SOURCE.replace('a - b', 'a + b'))
  })

  it('keeps digit-tab content literal when it matches as is (a TSV file)', async () => {
    put('data.tsv', 'id\tname\n1\tann\n2\tbob\n')
    await harness(execution).text(edit, { path: 'data.tsv', old_string: '1\tann\n2\tbob', new_string: '1\tann\n2\tbo' })
    expect(onDisk('data.tsv')).toBe('id\tname\n1\tann\n2\tbo\n')
  })

  it('matches LF old_string against a CRLF file and writes CRLF', async () => {
    put('win.txt', 'a\r\nb\r\nc\r\n')
    const out = await harness(execution).text(edit, { path: 'win.txt', old_string: 'a\nb', new_string: 'A\nB' })
    expect(out).toContain('CRLF')
    expect(onDisk('win.txt')).toBe('A\r\nB\r\nc\r\n')
  })

  it('keeps $-patterns in new_string literal', async () => {
    put('dollar.txt', 'price\n')
    await harness(execution).text(edit, { path: 'dollar.txt', old_string: 'price', new_string: '$& $1 $$' })
    expect(onDisk('dollar.txt')).toBe('$& $1 $$\n')
  })

  it('reports noop when the replacement changes nothing', async () => {
    put('same.js', SOURCE)
    const h = harness(execution)
    expect(await h.text(edit, { path: 'same.js', old_string: '  return a * b', new_string: '  return a * b' })).toBe('No change needed: the replacement leaves same.js unchanged.')
    expect(h.outcomes).toEqual(['noop'])
  })

  it('a missing file fails with a pointer to write_file', async () => {
    const h = harness(execution)
    expect(await h.error(edit, { path: 'ghost.js', old_string: 'a', new_string: 'b' })).toBe('File not found: ghost.js. To create a new file, use write_file.')
    expect(h.outcomes).toEqual(['failed'])
  })
})

describe('multi_edit', () => {
  it('applies edits in order, each to the result of the previous ones', async () => {
    put('multi.js', SOURCE)
    const h = harness(execution)
    const out = await h.text(multiEdit, {
      path: 'multi.js',
      edits: [
        { old_string: 'a - b', new_string: 'a + b' },
        { old_string: 'function add(a, b) {\n  return a + b', new_string: 'function add(a, b) {\n  return b + a' },
        { old_string: '(a, b)', new_string: '(p, q)', replace_all: true },
      ],
    })
    expect(out).toBe('Edited multi.js: 3 edits applied (4 replacements).')
    expect(onDisk('multi.js')).toBe(SOURCE.replace('a - b', 'b + a').replaceAll('(a, b)', '(p, q)'))
    expect(h.outcomes).toEqual(['edited'])
  })

  it('is atomic: a failing edit applies nothing and is named by its index', async () => {
    put('atomic.js', SOURCE)
    const h = harness(execution)
    const message = await h.error(multiEdit, {
      path: 'atomic.js',
      edits: [
        { old_string: 'a - b', new_string: 'a + b' },
        { old_string: 'not in the file at all', new_string: 'x' },
      ],
    })
    expect(message).toMatch(/^Edit 2 of 2 \(edits\[1\]\) failed: old_string was not found in atomic\.js\./)
    expect(message).toMatch(/No edits were applied; atomic\.js is unchanged\./)
    expect(onDisk('atomic.js')).toBe(SOURCE)
    expect(h.outcomes).toEqual(['failed'])
  })

  it('reports noop when the edits cancel out', async () => {
    put('undo.js', SOURCE)
    const h = harness(execution)
    await h.text(multiEdit, { path: 'undo.js', edits: [{ old_string: 'a - b', new_string: 'TEMP' }, { old_string: 'TEMP', new_string: 'a - b' }] })
    expect(h.outcomes).toEqual(['noop'])
  })

  it('rejects an empty edits list before running', async () => {
    expect(await harness(execution).error(multiEdit, { path: 'x', edits: [] })).toMatch(/^edits: /)
  })
})

describe('edit matching (pure)', () => {
  it('stripLineNumbers needs a prefix on every line, consecutive for old_string', () => {
    expect(stripLineNumbers('3\ta\n4\tb', true)).toBe('a\nb')
    expect(stripLineNumbers('    3\ta', true)).toBe('a')
    expect(stripLineNumbers('3\ta\nb', true)).toBeUndefined()
    expect(stripLineNumbers('3\ta\n7\tb', true)).toBeUndefined()
    expect(stripLineNumbers('3\ta\n7\tb', false)).toBe('a\nb')
  })

  it('an exact match that is ambiguous does not fall back to a looser form', () => {
    expect(applyEdit('x\nx\n', { old_string: 'x', new_string: 'y' })).toEqual({ ok: false, reason: 'ambiguous', count: 2, lines: [1, 2] })
  })

  it('nearestMatch finds the most similar window in a large file', () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `const value${i} = compute(${i})`)
    lines[20_000] = 'function targetFunction(alpha, beta) {'
    lines[20_001] = '  return alpha * beta + offset'
    const near = nearestMatch(lines.join('\n'), 'function targetFunction(alpha, beta) {\n  return alpha * beta + ofset')
    expect(near).toMatchObject({ startLine: 20_001, endLine: 20_002 })
    expect(near!.score).toBeGreaterThan(0.9)
  })
})
