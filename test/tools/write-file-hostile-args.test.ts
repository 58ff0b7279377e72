import type { ExecutionContext } from '../../src/contexts/types'
import { readFileSync, statSync, truncateSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { writeFile } from '../../src/tools/write-file'
import { harness, tempDirs, workspace } from './file-tools-support'

// write_file compared the new content with the file's old bytes to report "No change needed", and read the old
// file whole to do it, whatever its size: over 2 GiB the read failed (so the file could not be replaced at all),
// below that it took the whole file into memory (a 1.5 GiB file: over 2 GB of memory and 8 s). Only a file of
// the content's size can hold the same content, so no other file is read.

const tempDir = tempDirs('write-file-hostile')
const { dir, execution, put } = workspace(tempDir)

/** The context with its reads counted. */
function countingReads() {
  const counted = { reads: 0 }
  const context: ExecutionContext = { ...execution, readFile: (path) => {
    counted.reads++
    return execution.readFile(path)
  } }
  return { counted, h: harness(context as typeof execution) }
}

describe('write_file over an existing file', () => {
  it('replaces a 3 GiB file without reading it', async () => {
    // A hole: no disk space, no write time.
    truncateSync(put('huge.bin', ''), 3 * 1024 * 1024 * 1024)
    const { counted, h } = countingReads()
    expect(await h.text(writeFile, { path: 'huge.bin', content: 'small now\n' })).toBe('Updated huge.bin (1 line).')
    expect(counted.reads).toBe(0)
    expect(readFileSync(join(dir, 'huge.bin'), 'utf8')).toBe('small now\n')
    expect(h.outcomes).toEqual(['updated'])
  })

  it('reads the old file only when it has the new content\'s size in UTF-8 bytes', async () => {
    put('same.txt', 'héllo\n')
    const { counted, h } = countingReads()
    expect(await h.text(writeFile, { path: 'same.txt', content: 'héllo\n' })).toBe('No change needed: same.txt already has this content (1 line).')
    expect(counted.reads).toBe(1)
    // Same size, other bytes: read, then written.
    expect(await h.text(writeFile, { path: 'same.txt', content: 'hallo!\n' })).toBe('Updated same.txt (1 line).')
    expect(counted.reads).toBe(2)
    expect(await h.text(writeFile, { path: 'same.txt', content: 'longer than before\n' })).toBe('Updated same.txt (1 line).')
    expect(counted.reads).toBe(2)
    expect(statSync(join(dir, 'same.txt')).size).toBe(19)
    expect(h.outcomes).toEqual(['noop', 'updated', 'updated'])
  })
})
