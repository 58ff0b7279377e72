/**
 * The public tools' truncation never splits a code point: random Unicode
 * (astral code points, combining marks, multi-code-point emoji) goes through
 * fetch_url (a local server on 127.0.0.1), shell (the process context) and
 * read_file with random small caps, and what comes back is well-formed and a
 * prefix (or, for shell, a suffix) of the input once the marker is removed.
 */

import type { LocalServer } from '../support/local-http'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProcessContext } from '../../src/contexts/process'
import { createFetchUrlTool } from '../../src/tools/fetch-url'
import { grep } from '../../src/tools/grep'
import { createReadFileTool } from '../../src/tools/read-file'
import { createShellTool } from '../../src/tools/shell'
import { tempDirs, toolContext } from '../contexts/support'
import { bareToolContext, callTool, startLocalServer } from '../support/local-http'
import { isWellFormed, unicodeText } from '../support/unicode'

const bodies = new Map<string, { status: number, text: string }>()
let server: LocalServer
let next = 0

beforeAll(async () => {
  server = await startLocalServer((request, response) => {
    const page = bodies.get(request.url ?? '')
    if (!page)
      return response.writeHead(404).end()
    response.writeHead(page.status, { 'content-type': 'text/plain; charset=utf-8' }).end(page.text)
  })
})
afterAll(() => server.close())

/** Serve `text` at a fresh path (fresh, so the fetch cache never answers). */
function serve(text: string, status = 200): string {
  const path = `/u/${next++}`
  bodies.set(path, { status, text })
  return server.url(path)
}

/** The body of a fetch_url result: between the header and the first note. */
function fetchedBody(output: string): string {
  const start = output.indexOf('\n\n') + 2
  const end = output.indexOf('\n\n[Truncated', start)
  const body = end === -1 ? output.slice(start) : output.slice(start, end)
  // A byte cap smaller than the first character leaves nothing to show.
  return body === '(empty response body)' ? '' : body
}

describe('fetch_url truncation keeps code points whole', () => {
  it('under the byte cap and the character cap, the body is a well-formed prefix', async () => {
    await fc.assert(fc.asyncProperty(unicodeText({ minPieces: 1, maxPieces: 80 }), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 120 }), async (text, maxResponseBytes, maxOutputChars) => {
      const tool = createFetchUrlTool({ allowLoopbackForTests: true, maxResponseBytes, maxOutputChars })
      const output = await callTool(tool, { url: serve(text) }, bareToolContext({ name: 'fetch_url' }))
      const body = fetchedBody(output)
      expect(isWellFormed(body)).toBe(true)
      expect(text.startsWith(body)).toBe(true)
      expect(body.length).toBeLessThanOrEqual(maxOutputChars)
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(maxResponseBytes)
      // Short by less than one code point of whichever cap bit.
      const byteCapped = Buffer.byteLength(text) > maxResponseBytes
      const charCapped = body.length === maxOutputChars || body.length === maxOutputChars - 1
      if (!byteCapped && !charCapped)
        expect(body).toBe(text)
      if (byteCapped && !charCapped)
        expect(Buffer.byteLength(body)).toBeGreaterThan(maxResponseBytes - 4)
    }), { numRuns: 60 })
  })

  it('the excerpt of an HTTP error body is a well-formed prefix', async () => {
    const tool = createFetchUrlTool({ allowLoopbackForTests: true })
    await fc.assert(fc.asyncProperty(unicodeText({ minPieces: 150, maxPieces: 400 }), async (text) => {
      const url = serve(text, 500)
      const error = await callTool(tool, { url }, bareToolContext({ name: 'fetch_url' })).then(() => undefined, (failure: unknown) => failure as Error)
      const prefix = `HTTP 500 Internal Server Error from ${url}: `
      expect(error?.message.startsWith(prefix)).toBe(true)
      const excerpt = error!.message.slice(prefix.length)
      expect(isWellFormed(excerpt)).toBe(true)
      expect(text.startsWith(excerpt)).toBe(true)
      expect(excerpt.length).toBeLessThanOrEqual(300)
      expect(excerpt.length).toBeGreaterThanOrEqual(Math.min(text.length, 300) - 1)
    }), { numRuns: 30 })
  })
})

describe('shell and read_file truncation keep code points whole', () => {
  const dir = tempDirs('truncation-unicode')()
  const execution = createProcessContext({ cwd: dir })
  afterAll(() => execution.destroy())
  let file = 0

  it('shell keeps a well-formed tail of the output behind its marker', async () => {
    await fc.assert(fc.asyncProperty(unicodeText({ minPieces: 1, maxPieces: 80 }), fc.integer({ min: 1, max: 160 }), async (text, maxOutputBytes) => {
      const name = `out-${file++}.txt`
      writeFileSync(join(dir, name), text)
      const output = await callTool(createShellTool({ maxOutputBytes }), { command: `cat ${name}` }, toolContext({ execution }))
      // The input has no line breaks: the one before the footer is the separator.
      const body = output.replace(/\n?\[exit code 0 · [^\]]+\]$/, '')
      const marker = /^\[… (\d+) bytes dropped …\](?:\n|$)/.exec(body)
      const tail = marker ? body.slice(marker[0].length) : body
      expect(isWellFormed(tail)).toBe(true)
      expect(text.endsWith(tail)).toBe(true)
      expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(maxOutputBytes)
      if (marker)
        expect(Number(marker[1]) + Buffer.byteLength(tail)).toBe(Buffer.byteLength(text))
      else
        expect(tail).toBe(text)
    }), { numRuns: 40 })
  })

  it('grep clips a long matching line to a well-formed prefix', async () => {
    await fc.assert(fc.asyncProperty(unicodeText({ minPieces: 200, maxPieces: 400 }), async (text) => {
      const name = `grep-${file++}.txt`
      writeFileSync(join(dir, name), `needle${text}\n`)
      const output = await callTool(grep, { pattern: 'needle', path: name }, toolContext({ execution }))
      const line = /^[^:]+:1: (.*)$/m.exec(output)![1]
      const shown = line.endsWith('…') ? line.slice(0, -1) : line
      expect(isWellFormed(shown)).toBe(true)
      expect(`needle${text}`.startsWith(shown)).toBe(true)
      expect(shown.length).toBeLessThanOrEqual(300)
    }), { numRuns: 30 })
  })

  it('read_file cuts an overlong line to a well-formed prefix within the byte cap', async () => {
    await fc.assert(fc.asyncProperty(unicodeText({ minPieces: 1, maxPieces: 80 }), fc.integer({ min: 4, max: 160 }), async (text, maxBytes) => {
      const name = `line-${file++}.txt`
      writeFileSync(join(dir, name), text)
      const output = await callTool(createReadFileTool({ maxBytes }), { path: name, lineNumbers: false }, toolContext({ execution }))
      const cut = output.indexOf('\n\n[Line 1 is longer')
      const shown = cut === -1 ? output : output.slice(0, cut)
      expect(isWellFormed(shown)).toBe(true)
      expect(text.startsWith(shown)).toBe(true)
      expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(maxBytes)
      if (cut === -1)
        expect(shown).toBe(text)
      else
        expect(Buffer.byteLength(shown)).toBeGreaterThan(maxBytes - 4)
    }), { numRuns: 40 })
  })
})
