import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { edit } from '../../src/tools/edit'
import { grep } from '../../src/tools/grep'
import { createReadFileTool, readFile } from '../../src/tools/read-file'
import { harness, tempDirs, workspace } from './file-tools-support'

// A file under /proc reports size 0 and may hold gigabytes: /proc/self/pagemap has 8 bytes for every page of the
// address space. The size checks of read_file, grep and edit passed (0 bytes), and the context then read the file
// whole: 3 GB of memory in 17 s, with no way to abort it. The context now reads in chunks and stops past the
// caller's cap. Without the fix these tests time out while the worker's memory grows.

const tempDir = tempDirs('endless-files')
const PAGEMAP = '/proc/self/pagemap'

describe.runIf(existsSync(PAGEMAP))('files whose size says nothing (procfs)', () => {
  it('read_file refuses /proc/self/pagemap as too large instead of reading it whole', { timeout: 10_000 }, async () => {
    const h = harness(workspace(tempDir).execution)
    const message = await h.error(readFile, { path: PAGEMAP })
    expect(message).toMatch(/^\/proc\/self\/pagemap is too large to read \(more than 32\.0 MiB, though it reported 0 B, limit 32\.0 MiB\)\. /)
  })

  it('read_file still reads a small procfs file (size 0, a few bytes)', async () => {
    const h = harness(workspace(tempDir).execution)
    expect(await h.text(createReadFileTool(), { path: '/proc/self/stat' })).toMatch(/^1\t\d+ \(/)
  })

  it('grep skips it as a file over its cap and says so', { timeout: 10_000 }, async () => {
    const h = harness(workspace(tempDir).execution)
    expect(await h.text(grep, { pattern: 'needle', path: PAGEMAP }))
      .toBe('No matches for /needle/ in /proc/self/pagemap (0 files searched). [Skipped 1 file over 4.0 MiB.]')
  })

  it('edit refuses it as too large', { timeout: 10_000 }, async () => {
    const h = harness(workspace(tempDir).execution)
    expect(await h.error(edit, { path: PAGEMAP, old_string: 'a', new_string: 'b' }))
      .toMatch(/^\/proc\/self\/pagemap is too large to edit \(more than 32\.0 MiB, though it reported 0 B, limit 32\.0 MiB\)\./)
  })

  it('the process context stops one chunk past maxBytes with EFBIG, and reads pagemap in 8-byte multiples', { timeout: 10_000 }, async () => {
    const { execution } = workspace(tempDir)
    await expect(execution.readFile(PAGEMAP, { maxBytes: 1024 * 1024 })).rejects.toMatchObject({ code: 'EFBIG' })
  })
})

describe('the byte cap on an ordinary file', () => {
  it('reads a file exactly at the cap and refuses one a byte over it', async () => {
    const { execution, put } = workspace(tempDir)
    put('ten.txt', '0123456789')
    expect(new TextDecoder().decode(await execution.readFile('ten.txt', { maxBytes: 10 }))).toBe('0123456789')
    await expect(execution.readFile('ten.txt', { maxBytes: 9 })).rejects.toMatchObject({ code: 'EFBIG' })
    // Longer than one read chunk.
    put('big.txt', 'x'.repeat(200_000))
    expect((await execution.readFile('big.txt')).length).toBe(200_000)
  })
})
