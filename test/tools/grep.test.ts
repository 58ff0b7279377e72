import { describe, expect, it } from 'vitest'
import { createGrepTool, grep } from '../../src/tools/grep'
import { harness, tempDirs, workspace } from './file-tools-support'

const tempDir = tempDirs('grep')

function project() {
  const ws = workspace(tempDir)
  ws.put('src/a.ts', 'import x from "y"\nexport const answer = 42\n')
  ws.put('src/b.js', 'const answer = 41\r\n// TODO: fix answer\r\n')
  ws.put('docs/notes.md', 'the answer is elsewhere\n')
  ws.put('node_modules/dep/index.js', 'const answer = 0\n')
  ws.put('image.bin', Uint8Array.from([0x61, 0x6E, 0x73, 0x77, 0x65, 0x72, 0, 1]))
  return ws
}

describe('grep', () => {
  it('returns path:line: text for every matching line, skipping ignored dirs and binaries', async () => {
    const { execution } = project()
    expect(await harness(execution).text(grep, { pattern: 'answer' })).toBe([
      'docs/notes.md:1: the answer is elsewhere',
      'src/a.ts:2: export const answer = 42',
      'src/b.js:1: const answer = 41',
      'src/b.js:2: // TODO: fix answer',
      '[Skipped 1 binary file.]',
    ].join('\n'))
  })

  it('takes a regular expression, a path (dir or file) and a glob', async () => {
    const { execution } = project()
    const h = harness(execution)
    expect(await h.text(grep, { pattern: 'answer = \\d+$', path: 'src' })).toBe('src/a.ts:2: export const answer = 42\nsrc/b.js:1: const answer = 41')
    expect(await h.text(grep, { pattern: 'answer', glob: '*.ts' })).toBe('src/a.ts:2: export const answer = 42')
    expect(await h.text(grep, { pattern: 'answer', glob: 'src/**/*.js' })).toBe('src/b.js:1: const answer = 41\nsrc/b.js:2: // TODO: fix answer')
    expect(await h.text(grep, { pattern: 'TODO', path: 'src/b.js' })).toBe('src/b.js:2: // TODO: fix answer')
  })

  it('says when nothing matches, and rejects an invalid regex', async () => {
    const { execution } = project()
    const h = harness(execution)
    expect(await h.text(grep, { pattern: 'nothing-like-this', path: 'src' })).toBe('No matches for /nothing-like-this/ in src (2 files searched).')
    expect(await h.error(grep, { pattern: '(unclosed' })).toMatch(/^Invalid regular expression \/\(unclosed\//)
    expect(await h.error(grep, { pattern: 'x', path: 'missing' })).toBe('Not found: missing')
  })

  it('caps the matches with a truncation note, and clips long lines', async () => {
    const { execution, put } = workspace(tempDir)
    put('many.txt', `${Array.from({ length: 10 }, (_, i) => `hit ${i}`).join('\n')}\n${'hit '.repeat(200)}\n`)
    const capped = await harness(execution).text(createGrepTool({ limit: 3 }), { pattern: 'hit' })
    expect(capped).toBe('many.txt:1: hit 0\nmany.txt:2: hit 1\nmany.txt:3: hit 2\n\n[Stopped at 3 matches; narrow the pattern, path or glob to see the rest.]')
    const long = await harness(execution).text(grep, { pattern: 'hit hit' })
    expect(long).toMatch(/^many\.txt:11: (hit ){75}…$/)
  })

  // A long line was cut from its start, so on a minified file (one line) the match was not in the result.
  it('shows a long line around its match, marking each cut', async () => {
    const { execution, put } = workspace(tempDir)
    put('bundle.min.js', `${'a=1;'.repeat(5_000)}needle();${'b=2;'.repeat(5_000)}\n${'c=3;'.repeat(100)}needle\n`)
    const found = (await harness(execution).text(grep, { pattern: 'needle' })).split('\n')
    // 100 characters before the match, 300 in all.
    expect(found[0]).toBe(`bundle.min.js:1: …${'a=1;'.repeat(25)}needle();${'b=2;'.repeat(47)}b=2…`)
    // Near the end of its line: the window ends with the line.
    expect(found[1]).toBe(`bundle.min.js:2: …${'c=3;'.repeat(100).slice(-294)}needle`)
    const regex = await harness(execution).text(grep, { pattern: 'need+le\\(' })
    expect(regex).toContain('needle();')
  })

  it('skips files over the size cap and says so', async () => {
    const { execution, put } = workspace(tempDir)
    put('big.log', 'needle\n'.repeat(100))
    put('small.txt', 'needle\n')
    const out = await harness(execution).text(createGrepTool({ maxFileBytes: 100 }), { pattern: 'needle' })
    expect(out).toBe('small.txt:1: needle\n[Skipped 1 file over 100 B.]')
  })
})
