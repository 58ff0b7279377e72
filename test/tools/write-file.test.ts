import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readStateOf } from '../../src/tools/read-state'
import { writeFile } from '../../src/tools/write-file'
import { harness, newSession, tempDirs, workspace } from './file-tools-support'

const tempDir = tempDirs('write-file')
const { dir, execution, put } = workspace(tempDir)

describe('write_file', () => {
  it('creates a file and its missing parent directories', async () => {
    const h = harness(execution)
    expect(await h.text(writeFile, { path: 'a/b/c.txt', content: 'x\ny\n' })).toBe('Created a/b/c.txt (2 lines).')
    expect(readFileSync(join(dir, 'a/b/c.txt'), 'utf8')).toBe('x\ny\n')
    expect(h.outcomes).toEqual(['created'])
  })

  it('replaces an existing file (updated), and says no change is needed for identical content (noop)', async () => {
    put('same.txt', 'one\n')
    const h = harness(execution)
    expect(await h.text(writeFile, { path: 'same.txt', content: 'one\n' })).toBe('No change needed: same.txt already has this content (1 line).')
    expect(await h.text(writeFile, { path: 'same.txt', content: 'two\nthree' })).toBe('Updated same.txt (2 lines).')
    expect(readFileSync(join(dir, 'same.txt'), 'utf8')).toBe('two\nthree')
    expect(h.outcomes).toEqual(['noop', 'updated'])
  })

  it('refuses a directory path with the failed outcome', async () => {
    put('folder/inner.txt', '')
    const h = harness(execution)
    expect(await h.error(writeFile, { path: 'folder', content: 'x' })).toBe('folder is a directory; write_file needs a file path.')
    expect(h.outcomes).toEqual(['failed'])
  })

  it('records the written content in the session read state (not as a dedupable read)', async () => {
    const session = await newSession()
    await harness(execution, { session }).text(writeFile, { path: 'tracked.txt', content: 'hello' })
    const entry = readStateOf(session).get(join(dir, 'tracked.txt'))
    expect(entry).toMatchObject({ source: 'write_file', hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(entry?.slice).toBeUndefined()
  })
})
