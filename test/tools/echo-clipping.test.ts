import { describe, expect, it } from 'vitest'
import { edit } from '../../src/tools/edit'
import { grep } from '../../src/tools/grep'
import { readFile } from '../../src/tools/read-file'
import { writeFile } from '../../src/tools/write-file'
import { harness, tempDirs, workspace } from './file-tools-support'

// An error or a no-match result repeated the model's input whole, often twice (in the sentence and again in
// Node's message): a 1 MB path came back as a 2 MB error. Paths and patterns are now repeated up to 200
// characters with their length, and a system message up to 300.

const tempDir = tempDirs('echo-clipping')
const big = 'q'.repeat(1_000_000)

describe('results that repeat the model\'s input', () => {
  it('clip a huge path in read_file, edit and write_file errors', async () => {
    const h = harness(workspace(tempDir).execution)
    for (const message of [
      await h.error(readFile, { path: big }),
      await h.error(edit, { path: big, old_string: 'a', new_string: 'b' }),
      await h.error(writeFile, { path: `${big}/x`, content: 'b' }),
    ]) {
      expect(message.length).toBeLessThan(1_000)
      expect(message).toContain(`${'q'.repeat(200)}… (`)
    }
  })

  it('clip a huge pattern in grep\'s no-match result and its invalid-pattern error', async () => {
    const ws = workspace(tempDir)
    ws.put('a.txt', 'hello\n')
    const h = harness(ws.execution)
    const none = await h.text(grep, { pattern: big })
    expect(none).toBe(`No matches for /${'q'.repeat(200)}… (1000000 characters)/ in the working directory (1 file searched).`)
    // Shorter: RE2 takes seconds to parse a megabyte.
    const invalid = await h.error(grep, { pattern: `(${big.slice(0, 100_000)}` })
    expect(invalid.length).toBeLessThan(1_000)
    expect(invalid).toMatch(/^Invalid regular expression \/\(q{199}… \(100001 characters\)\//)
  })

  it('leave a short path whole', async () => {
    const h = harness(workspace(tempDir).execution)
    expect(await h.error(edit, { path: 'missing.txt', old_string: 'a', new_string: 'b' })).toBe('File not found: missing.txt. To create a new file, use write_file.')
  })
})
