import type { ToolResultContent } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { createReadFileTool, readFile } from '../../src/tools/read-file'
import { fileBehavior, harness, newSession, tempDirs, workspace } from './file-tools-support'

const tempDir = tempDirs('read-file')
const { execution, put } = workspace(tempDir)

const PNG = Uint8Array.from([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 1, 2, 3])
const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n')

describe('read_file: text', () => {
  put('five.txt', 'one\ntwo\nthree\nfour\nfive\n')

  it('numbers lines like cat -n (number, tab, line) by default', async () => {
    const { text } = harness(execution)
    expect(await text(readFile, { path: 'five.txt' })).toBe('1\tone\n2\ttwo\n3\tthree\n4\tfour\n5\tfive')
  })

  it('readLineNumbers: false drops the prefix; a call\'s lineNumbers wins over it', async () => {
    const off = harness(execution, { behavior: fileBehavior({ readLineNumbers: false }) })
    expect(await off.text(readFile, { path: 'five.txt', limit: 2 })).toMatch(/^one\ntwo\n\n\[Showing lines 1-2 of 5/)
    expect(await off.text(readFile, { path: 'five.txt', limit: 1, lineNumbers: true })).toMatch(/^1\tone\n/)
    const on = harness(execution)
    expect(await on.text(readFile, { path: 'five.txt', limit: 1, lineNumbers: false })).toMatch(/^one\n/)
  })

  it('offset is a 1-based line; limit bounds the slice; the footer gives the next offset', async () => {
    const { text } = harness(execution)
    const out = await text(readFile, { path: 'five.txt', offset: 2, limit: 2 })
    expect(out).toBe('2\ttwo\n3\tthree\n\n[Showing lines 2-3 of 5. To read more, call read_file with offset=4.]')
    expect(await text(readFile, { path: 'five.txt', offset: 4 })).toBe('4\tfour\n5\tfive')
  })

  it('readFileDefaults.limit applies when the call gives none; an explicit limit wins', async () => {
    const { text } = harness(execution, { behavior: fileBehavior({ readFileDefaults: { limit: 1 } }) })
    expect(await text(readFile, { path: 'five.txt' })).toMatch(/^1\tone\n\n\[Showing lines 1-1 of 5\. To read more, call read_file with offset=2\.\]$/)
    expect(await text(readFile, { path: 'five.txt', limit: 3 })).toMatch(/^1\tone\n2\ttwo\n3\tthree\n\n\[Showing lines 1-3/)
  })

  it('readFileDefaults.maxBytes caps the text at the last whole line and says where to go on', async () => {
    const { text } = harness(execution, { behavior: fileBehavior({ readFileDefaults: { maxBytes: 12 } }) })
    // "1\tone\n" is 6 bytes, "2\ttwo\n" 6 more: the third line does not fit.
    expect(await text(readFile, { path: 'five.txt' })).toBe('1\tone\n2\ttwo\n\n[Output capped at 12 B: showing lines 1-2 of 5. To read more, call read_file with offset=3.]')
  })

  it('the tool\'s own byte cap applies without readFileDefaults, and a single over-long line is cut, not dropped', async () => {
    put('long.txt', `${'x'.repeat(50)}\nshort\n`)
    const tool = createReadFileTool({ maxBytes: 20 })
    const out = await harness(execution).text(tool, { path: 'long.txt' })
    expect(out.startsWith(`1\t${'x'.repeat(18)}\n\n[Line 1 is longer than the 20 B read cap and was cut`)).toBe(true)
    expect(out).toContain('offset=2')
  })

  it('refuses an offset past the end, and reports an empty file', async () => {
    put('empty.txt', '')
    const h = harness(execution)
    expect(await h.error(readFile, { path: 'five.txt', offset: 9 })).toBe('offset 9 is past the end of five.txt, which has 5 lines.')
    expect(await h.text(readFile, { path: 'empty.txt' })).toBe('(empty.txt is empty)')
  })

  it('strips CR from CRLF lines', async () => {
    put('crlf.txt', 'a\r\nb\r\n')
    expect(await harness(execution).text(readFile, { path: 'crlf.txt' })).toBe('1\ta\n2\tb')
  })

  it('reads through the execution context: relative paths resolve against its cwd, absolute ones work too', async () => {
    const absolute = put('nested/deep.txt', 'deep\n')
    const h = harness(execution)
    expect(await h.text(readFile, { path: 'nested/deep.txt' })).toBe('1\tdeep')
    expect(await h.text(readFile, { path: absolute })).toBe('1\tdeep')
  })
})

describe('read_file: errors, binaries and attachments', () => {
  it('a missing file is an error that suggests same-stem names', async () => {
    put('guess/config.json', '{}')
    const h = harness(execution)
    expect(await h.error(readFile, { path: 'guess/config.yaml' })).toBe('File not found: guess/config.yaml. In the same directory: config.json.')
    expect(await h.error(readFile, { path: 'nowhere/x.txt' })).toMatch(/^File not found: nowhere\/x\.txt \(its directory does not exist either\)/)
  })

  it('a directory is refused with a pointer to list_files', async () => {
    put('adir/f.txt', 'f')
    expect(await harness(execution).error(readFile, { path: 'adir' })).toMatch(/adir is a directory.*list_files/)
  })

  it('binary files are refused clearly', async () => {
    put('blob.bin', Uint8Array.from([1, 2, 0, 3, 4]))
    expect(await harness(execution).error(readFile, { path: 'blob.bin' })).toMatch(/^Cannot read blob\.bin: it is a binary file/)
  })

  it('images come back as an image block, detected by content', async () => {
    put('pic.dat', PNG)
    const out = await harness(execution).call(readFile, { path: 'pic.dat' }) as ToolResultContent[]
    expect(out[0]).toEqual({ type: 'text', text: 'Image pic.dat (image/png, 15 B):' })
    expect(out[1]).toEqual({ type: 'image', data: Buffer.from(PNG).toString('base64'), mediaType: 'image/png', name: 'pic.dat' })
  })

  it('pDFs come back as a base64 document block', async () => {
    put('doc.pdf', PDF)
    const out = await harness(execution).call(readFile, { path: 'doc.pdf' }) as ToolResultContent[]
    expect(out[1]).toEqual({ type: 'document', data: Buffer.from(PDF).toString('base64'), encoding: 'base64', mediaType: 'application/pdf', name: 'doc.pdf' })
  })

  it('attachments over the cap are refused', async () => {
    put('big.png', PNG)
    const tool = createReadFileTool({ maxImageBytes: 10 })
    expect(await harness(execution).error(tool, { path: 'big.png' })).toBe('big.png is too large to attach (15 B, limit 10 B).')
  })
})

describe('read_file: dedupReads', () => {
  it('an identical re-read of an unchanged file returns a stub, only with a session', async () => {
    put('dedup.txt', 'alpha\nbeta\n')
    const session = await newSession()
    const h = harness(execution, { session })
    expect(await h.text(readFile, { path: 'dedup.txt' })).toBe('1\talpha\n2\tbeta')
    const again = await h.text(readFile, { path: 'dedup.txt' })
    expect(again).toMatch(/^\[dedup\.txt is unchanged since your last read_file of it with the same range/)
    expect(again).not.toContain('alpha')

    const noSession = harness(execution)
    await noSession.text(readFile, { path: 'dedup.txt' })
    expect(await noSession.text(readFile, { path: 'dedup.txt' })).toBe('1\talpha\n2\tbeta')
  })

  it('a different slice, changed bytes, or dedupReads: false all return the content', async () => {
    const path = put('dedup2.txt', 'alpha\nbeta\n')
    const session = await newSession()
    const h = harness(execution, { session })
    await h.text(readFile, { path: 'dedup2.txt' })
    expect(await h.text(readFile, { path: 'dedup2.txt', offset: 2 })).toBe('2\tbeta')
    expect(await h.text(readFile, { path: 'dedup2.txt', lineNumbers: false })).toBe('alpha\nbeta')
    put('dedup2.txt', 'alpha\nBETA\n')
    expect(await h.text(readFile, { path: 'dedup2.txt', lineNumbers: false })).toBe('alpha\nBETA')
    expect(path).toMatch(/dedup2\.txt$/)

    const off = harness(execution, { session, behavior: fileBehavior({ dedupReads: false }) })
    await off.text(readFile, { path: 'dedup2.txt' })
    expect(await off.text(readFile, { path: 'dedup2.txt' })).toBe('1\talpha\n2\tBETA')
  })
})

describe('read_file: size limits', () => {
  it('refuses a text file over maxFileBytes, pointing to shell slices', async () => {
    put('huge.log', 'line\n'.repeat(40))
    const tool = createReadFileTool({ maxFileBytes: 100 })
    expect(await harness(execution).error(tool, { path: 'huge.log' })).toBe('huge.log is too large to read (200 B, limit 100 B). Look at parts of it with shell commands such as `sed -n \'100,200p\'` or `tail -n 100`.')
  })
})
