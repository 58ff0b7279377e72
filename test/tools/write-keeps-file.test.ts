import { chmodSync, lstatSync, readFileSync, readlinkSync, statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { edit } from '../../src/tools/edit'
import { readFile } from '../../src/tools/read-file'
import { writeFile } from '../../src/tools/write-file'
import { harness, tempDirs, workspace } from './file-tools-support'

// The process context writes through a temp file renamed over the target. The temp file had the default mode,
// so an edited script lost its execute bit (755 became 644) and a private file became readable by others (600
// became 644), and renaming over a symlink replaced the link by a plain file, leaving its target unchanged while
// the tool reported "Edited". The write now lands on the link's target, with the old file's mode.

const tempDir = tempDirs('write-keeps-file')
const modeOf = (path: string) => statSync(path).mode & 0o777

describe('edit and write_file keep what the file was', () => {
  it('an edited script stays executable and a private file stays private', async () => {
    const ws = workspace(tempDir)
    const script = ws.put('run.sh', '#!/bin/sh\necho old\n')
    chmodSync(script, 0o755)
    const secret = ws.put('secret.env', 'TOKEN=old\n')
    chmodSync(secret, 0o600)
    const h = harness(ws.execution)
    expect(await h.text(edit, { path: 'run.sh', old_string: 'old', new_string: 'new' })).toBe('Edited run.sh: 1 replacement.')
    expect(await h.text(writeFile, { path: 'secret.env', content: 'TOKEN=new\n' })).toContain('secret.env')
    expect(modeOf(script)).toBe(0o755)
    expect(modeOf(secret)).toBe(0o600)
    expect(readFileSync(script, 'utf8')).toBe('#!/bin/sh\necho new\n')
  })

  it('a new file gets the usual mode', async () => {
    const ws = workspace(tempDir)
    const h = harness(ws.execution)
    await h.text(writeFile, { path: 'fresh.txt', content: 'x\n' })
    expect(modeOf(join(ws.dir, 'fresh.txt'))).toBe(0o666 & ~process.umask())
  })

  it('edit and write_file through a symlink change its target and keep the link', async () => {
    const ws = workspace(tempDir)
    const target = ws.put('real/config.json', '{"a": 1}\n')
    const link = join(ws.dir, 'config.json')
    symlinkSync('real/config.json', link)
    const h = harness(ws.execution)
    expect(await h.text(edit, { path: 'config.json', old_string: '1', new_string: '2' })).toBe('Edited config.json: 1 replacement.')
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readlinkSync(link)).toBe('real/config.json')
    expect(readFileSync(target, 'utf8')).toBe('{"a": 2}\n')
    await h.text(writeFile, { path: 'config.json', content: '{"a": 3}\n' })
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readFileSync(target, 'utf8')).toBe('{"a": 3}\n')
    expect(await h.text(readFile, { path: 'config.json', lineNumbers: false })).toContain('{"a": 3}')
  })

  it('write_file through a dangling symlink creates its target', async () => {
    const ws = workspace(tempDir)
    const link = join(ws.dir, 'later.txt')
    symlinkSync('made/later.txt', link)
    await harness(ws.execution).text(writeFile, { path: 'later.txt', content: 'now\n' })
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readFileSync(join(ws.dir, 'made/later.txt'), 'utf8')).toBe('now\n')
  })
})
