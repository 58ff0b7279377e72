import { execFileSync } from 'node:child_process'
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { edit } from '../../src/tools/edit'
import { grep } from '../../src/tools/grep'
import { readFile } from '../../src/tools/read-file'
import { writeFile } from '../../src/tools/write-file'
import { harness, tempDirs, workspace } from './file-tools-support'

// A path the model names may be a FIFO, whose read waits for a writer that may never come (and cannot be
// aborted), or a device such as /dev/zero, which never ends: read_file on it grew the process by about 300 MB a
// second. The file tools and the process context now refuse anything but a regular file before reading it.
// Without the fix these tests hang or run the process out of memory.

const tempDir = tempDirs('special-files')

function specialFiles() {
  const ws = workspace(tempDir)
  execFileSync('mkfifo', [join(ws.dir, 'pipe')])
  symlinkSync('/dev/zero', join(ws.dir, 'zeros'))
  ws.put('real.txt', 'hello\n')
  return ws
}

describe('files that are not regular files', () => {
  it('read_file refuses a FIFO, a device and a link to a device, naming what they are', async () => {
    const h = harness(specialFiles().execution)
    for (const path of ['pipe', 'zeros', '/dev/zero', '/dev/urandom'])
      expect(await h.error(readFile, { path })).toBe(`${path} is not a regular file (a device, a FIFO or a socket); read_file reads regular files only.`)
    expect(await h.text(readFile, { path: 'real.txt' })).toContain('hello')
  })

  it('edit and write_file refuse them instead of reading them', async () => {
    const h = harness(specialFiles().execution)
    for (const path of ['pipe', 'zeros']) {
      expect(await h.error(edit, { path, old_string: 'a', new_string: 'b' })).toContain('not a regular file')
      expect(await h.error(writeFile, { path, content: 'x' })).toContain('not a regular file')
    }
  })

  it('grep skips them, whether named or met in a walk', async () => {
    const h = harness(specialFiles().execution)
    expect(await h.text(grep, { pattern: 'x', path: 'pipe' })).toBe('No matches for /x/ in pipe (0 files searched).')
    expect(await h.text(grep, { pattern: 'hello' })).toBe('real.txt:1: hello')
  })

  it('the process context\'s readFile refuses them, and still reads a regular file', async () => {
    const { execution, dir } = specialFiles()
    await expect(execution.readFile('pipe')).rejects.toThrow('not a regular file')
    await expect(execution.readFile('zeros')).rejects.toThrow('not a regular file')
    await expect(execution.readFile(dir)).rejects.toMatchObject({ code: 'EISDIR' })
    expect(new TextDecoder().decode(await execution.readFile('real.txt'))).toBe('hello\n')
  })
})
