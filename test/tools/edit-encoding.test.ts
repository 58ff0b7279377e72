import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { edit } from '../../src/tools/edit'
import { multiEdit } from '../../src/tools/multi-edit'
import { readFile } from '../../src/tools/read-file'
import { harness, newSession, tempDirs, workspace } from './file-tools-support'

// edit decodes the file as UTF-8 and writes the whole text back. A Latin-1 file came back with every non-ASCII
// byte turned into U+FFFD (EF BF BD), the edited line and all the others, and a UTF-8 byte order mark was
// dropped. An edit now refuses a file that is not UTF-8, naming a way that keeps its encoding, and keeps a BOM.

const tempDir = tempDirs('edit-encoding')
const latin1 = (text: string) => Uint8Array.from(text, char => char.charCodeAt(0))

describe('edit and the file\'s encoding', () => {
  it('refuses a Latin-1 file and leaves its bytes alone', async () => {
    const ws = workspace(tempDir)
    const bytes = latin1('café = 1\nnaïve = 2\n')
    const path = ws.put('legacy.txt', bytes)
    const h = harness(ws.execution)
    const message = await h.error(edit, { path: 'legacy.txt', old_string: '= 2', new_string: '= 3' })
    expect(message).toBe('legacy.txt is not UTF-8 text (a legacy encoding such as Latin-1 or Windows-1252?); edit rewrites the whole file as UTF-8 and would replace every non-UTF-8 byte in it, so nothing was changed. '
      + 'Make the change with a shell command that keeps the encoding (`sed`, or `iconv` to UTF-8 and back).')
    expect(h.outcomes).toEqual(['failed'])
    expect(new Uint8Array(readFileSync(path))).toEqual(bytes)
    expect(await h.error(multiEdit, { path: 'legacy.txt', edits: [{ old_string: '= 2', new_string: '= 3' }] })).toContain('not UTF-8 text')
  })

  it('keeps a UTF-8 byte order mark', async () => {
    const ws = workspace(tempDir)
    const path = ws.put('bom.csv', '\uFEFFname,qty\napple,1\n')
    const h = harness(ws.execution)
    expect(await h.text(edit, { path: 'bom.csv', old_string: 'apple,1', new_string: 'apple,2' })).toBe('Edited bom.csv: 1 replacement.')
    expect(readFileSync(path, 'utf8')).toBe('\uFEFFname,qty\napple,2\n')
    expect([...readFileSync(path).subarray(0, 3)]).toEqual([0xEF, 0xBB, 0xBF])
  })

  it('after an edit of a file with a BOM, the next edit is not seen as drift', async () => {
    const ws = workspace(tempDir)
    ws.put('bom.txt', '\uFEFFone\ntwo\n')
    const h = harness(ws.execution, { session: await newSession() })
    await h.text(readFile, { path: 'bom.txt' })
    await h.text(edit, { path: 'bom.txt', old_string: 'one', new_string: 'uno' })
    expect(await h.text(edit, { path: 'bom.txt', old_string: 'two', new_string: 'dos' })).toBe('Edited bom.txt: 1 replacement.')
  })
})
