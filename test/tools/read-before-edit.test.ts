import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { edit } from '../../src/tools/edit'
import { multiEdit } from '../../src/tools/multi-edit'
import { readFile } from '../../src/tools/read-file'
import { noteShellCommand } from '../../src/tools/read-state'
import { writeFile } from '../../src/tools/write-file'
import { fileBehavior, harness, newSession, tempDirs, workspace } from './file-tools-support'

const tempDir = tempDirs('read-before-edit')
const { dir, execution, put } = workspace(tempDir)
const guarded = fileBehavior({ requireReadBeforeEdit: true })

describe('requireReadBeforeEdit', () => {
  it('refuses an edit to a file never read in the session, with the failed outcome', async () => {
    put('never.txt', 'hello\n')
    const h = harness(execution, { session: await newSession(), behavior: guarded })
    const message = await h.error(edit, { path: 'never.txt', old_string: 'hello', new_string: 'bye' })
    expect(message).toMatch(/^Refused: never\.txt has not been read in this session\. Call read_file on it first/)
    expect(h.outcomes).toEqual(['failed'])
    expect(readFileSync(join(dir, 'never.txt'), 'utf8')).toBe('hello\n')
  })

  it('is off by default, and a no-op without a session', async () => {
    put('free.txt', 'hello\n')
    await harness(execution, { session: await newSession() }).text(edit, { path: 'free.txt', old_string: 'hello', new_string: 'hi' })
    await harness(execution, { behavior: guarded }).text(edit, { path: 'free.txt', old_string: 'hi', new_string: 'hey' })
    expect(readFileSync(join(dir, 'free.txt'), 'utf8')).toBe('hey\n')
  })

  it('allows edits after read_file (a partial read counts), after write_file, and after its own edits', async () => {
    put('read.txt', 'one\ntwo\nthree\n')
    const h = harness(execution, { session: await newSession(), behavior: guarded })
    await h.text(readFile, { path: 'read.txt', limit: 1 })
    await h.text(edit, { path: 'read.txt', old_string: 'three', new_string: '3' })
    await h.text(edit, { path: 'read.txt', old_string: 'two', new_string: '2' })
    await h.text(writeFile, { path: 'fresh.txt', content: 'new\n' })
    await h.text(multiEdit, { path: 'fresh.txt', edits: [{ old_string: 'new', new_string: 'newer' }] })
    expect(h.outcomes).toEqual(['edited', 'edited', 'created', 'edited'])
    expect(readFileSync(join(dir, 'read.txt'), 'utf8')).toBe('one\n2\n3\n')
  })

  it('drift with a verbatim match: applies the edit and discloses the drift', async () => {
    const path = put('drift-ok.txt', 'alpha\nbeta\n')
    const h = harness(execution, { session: await newSession(), behavior: guarded })
    await h.text(readFile, { path: 'drift-ok.txt' })
    writeFileSync(path, 'alpha\nbeta\ngamma (added by a formatter)\n')
    const out = await h.text(edit, { path: 'drift-ok.txt', old_string: 'beta', new_string: 'BETA' })
    expect(out).toMatch(/^Edited drift-ok\.txt: 1 replacement\.\nNote: drift-ok\.txt had changed since you last read it/)
    expect(readFileSync(path, 'utf8')).toBe('alpha\nBETA\ngamma (added by a formatter)\n')
    expect(h.outcomes).toEqual(['edited'])
    // The edit recorded the new bytes: the next edit sees no drift.
    expect(await h.text(edit, { path: 'drift-ok.txt', old_string: 'alpha', new_string: 'ALPHA' })).toBe('Edited drift-ok.txt: 1 replacement.')
  })

  it('drift without a verbatim match: refuses, then escalates and names the shell command that ran since', async () => {
    const path = put('drift-bad.txt', 'const a = 1\n')
    const session = await newSession()
    const h = harness(execution, { session, behavior: guarded })
    await h.text(readFile, { path: 'drift-bad.txt' })
    writeFileSync(path, 'const a = 2\n')
    const first = await h.error(edit, { path: 'drift-bad.txt', old_string: 'const a = 1', new_string: 'const a = 3' })
    expect(first).toMatch(/^Refused: drift-bad\.txt has changed since you last read it, and old_string does not match its current content\. Call read_file on it again/)
    const second = await h.error(edit, { path: 'drift-bad.txt', old_string: 'const a = 1', new_string: 'const a = 3' })
    expect(second).toMatch(/^Refused again \(2 times\): drift-bad\.txt keeps changing between your reads and your edits\. The likely writer is outside this conversation/)
    noteShellCommand(session, 'npx prettier --write .')
    const third = await h.error(edit, { path: 'drift-bad.txt', old_string: 'const a = 1', new_string: 'const a = 3' })
    expect(third).toContain('Refused again (3 times)')
    expect(third).toContain('The likely writer is the shell command you ran after your last read: `npx prettier --write .`.')
    expect(h.outcomes).toEqual(['failed', 'failed', 'failed'])
    expect(readFileSync(path, 'utf8')).toBe('const a = 2\n')

    // A fresh read clears the drift and the escalation.
    await h.text(readFile, { path: 'drift-bad.txt' })
    expect(await h.text(edit, { path: 'drift-bad.txt', old_string: 'const a = 2', new_string: 'const a = 3' })).toBe('Edited drift-bad.txt: 1 replacement.')
  })

  it('drift refuses a match found only by a recovery (CRLF), even though it would apply without drift', async () => {
    const path = put('drift-crlf.txt', 'a\r\nb\r\n')
    const h = harness(execution, { session: await newSession(), behavior: guarded })
    await h.text(readFile, { path: 'drift-crlf.txt' })
    writeFileSync(path, 'a\r\nb\r\nc\r\n')
    expect(await h.error(edit, { path: 'drift-crlf.txt', old_string: 'a\nb', new_string: 'x' })).toMatch(/^Refused: drift-crlf\.txt has changed since you last read it/)
  })

  it('multi_edit under drift is refused as a whole when one edit no longer matches', async () => {
    const path = put('drift-multi.txt', 'one\ntwo\n')
    const h = harness(execution, { session: await newSession(), behavior: guarded })
    await h.text(readFile, { path: 'drift-multi.txt' })
    writeFileSync(path, 'one\nTWO\n')
    const message = await h.error(multiEdit, { path: 'drift-multi.txt', edits: [{ old_string: 'one', new_string: '1' }, { old_string: 'two', new_string: '2' }] })
    expect(message).toMatch(/^Refused: drift-multi\.txt has changed since you last read it/)
    expect(readFileSync(path, 'utf8')).toBe('one\nTWO\n')
  })
})
