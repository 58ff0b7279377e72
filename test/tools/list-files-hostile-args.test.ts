import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createListFilesTool, listFiles } from '../../src/tools/list-files'
import { harness, tempDirs, workspace } from './file-tools-support'

// list_files stopped at 1000 entries but not at a size: in a deep tree every path is thousands of characters
// long, and one call returned 1.5 MB (about 400,000 tokens) for a tree of 100-character names nested up to
// PATH_MAX. The listing now also stops at 100 KiB of text. Symlinked directories, loops included, are listed
// and not entered (that was already so; the test keeps it so).

const tempDir = tempDirs('list-files-hostile')

describe('list_files on hostile trees', () => {
  it('stops at 100 KiB of text in a deep tree of long names', async () => {
    const { dir, execution } = workspace(tempDir)
    const name = 'd'.repeat(100)
    let path = dir
    // As deep as the path limit allows (4096 bytes), a file at every level.
    while (path.length + name.length + 10 < 4000) {
      path = join(path, name)
      mkdirSync(path)
      writeFileSync(join(path, 'f'), '')
    }
    const out = await harness(execution).text(listFiles, {})
    const note = out.slice(out.lastIndexOf('\n\n') + 2)
    expect(note).toMatch(/^\[Listing stopped at \d+ entries, 100\.0 KiB of text; list a subdirectory to see the rest\.\]$/)
    const body = out.slice(0, out.lastIndexOf('\n\n'))
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(100 * 1024)
    // Breadth first: the cut keeps the top of the tree.
    expect(body.split('\n')[0]).toBe(`${name}/`)
    expect(body).toContain(`${name}/f`)
  })

  it('maxBytes sets the cap; the entry limit still applies first when it is reached first', async () => {
    const ws = workspace(tempDir)
    for (let i = 0; i < 20; i++)
      ws.put(`file-${String(i).padStart(2, '0')}.txt`, '')
    const h = harness(ws.execution)
    expect(await h.text(createListFilesTool({ maxBytes: 40 }), {})).toBe('file-00.txt\nfile-01.txt\nfile-02.txt\n\n[Listing stopped at 3 entries, 40 B of text; list a subdirectory to see the rest.]')
    expect(await h.text(createListFilesTool({ limit: 2, maxBytes: 40 }), {})).toBe('file-00.txt\nfile-01.txt\n\n[Listing stopped at 2 entries; list a subdirectory to see the rest.]')
  })

  it('does not follow symlinked directories, so a link loop is listed once', async () => {
    const { dir, execution, put } = workspace(tempDir)
    put('sub/file.txt', '')
    symlinkSync('..', join(dir, 'sub/up'))
    symlinkSync(dir, join(dir, 'self'))
    expect(await harness(execution).text(listFiles, {})).toBe('self@\nsub/\nsub/file.txt\nsub/up@')
  })
})
