/**
 * A base64 document declared `application/pdf` went out as an Anthropic
 * document block (a file part on the OpenAI APIs) whatever its bytes were:
 * an HTML error page saved as `report.pdf`, or an empty file, was refused by
 * the API, and as it stays in the conversation, on every later request too.
 * Now one whose first kilobyte has no `%PDF-` goes out as a note, as an
 * image with the wrong bytes does; the session keeps it as it came.
 */

import type { FakeAnthropic } from '../support/fake-anthropic'
import { Buffer } from 'node:buffer'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { sniffImageType } from '../../src/wire/stages/image-bytes'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { echoTool } from '../support/helpers'

const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n').toString('base64')
/** A PDF after a preamble, as some generators write them: readers look for the header in the first kilobyte. */
const PDF_AFTER_PREAMBLE = Buffer.from(`${'x'.repeat(600)}\n%PDF-1.4\n%%EOF\n`).toString('base64')
const HTML = Buffer.from('<!doctype html><html><body>404 Not Found</body></html>').toString('base64')

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

interface Part { type: string, text?: string, source?: { media_type: string, data: string }, title?: string }

/** One tool call answering `documents`, a text turn, then a second run: both later requests' tool-result content. */
async function sendDocuments(documents: { data: string, name?: string }[]) {
  fake.enqueue(
    { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'fetch_pdf', input: {} }] } },
    { type: 'turn', turn: { text: 'read' } },
    { type: 'turn', turn: { text: 'again' } },
  )
  const tool = echoTool('fetch_pdf', { execute: () => documents.map(document => ({ type: 'document' as const, encoding: 'base64' as const, mediaType: 'application/pdf', ...document })) })
  const session = await createSession()
  const agent = createAgent({ provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-sonnet-4-5' }), session, tools: { fetch_pdf: tool } })
  expect((await agent.run({ prompt: 'read it' })).stopReason).toBe('completed')
  expect((await agent.run({ prompt: 'again' })).stopReason).toBe('completed')
  const resultContent = (index: number) => {
    const body = fake.requests[index].body as { messages: { content: unknown }[] }
    const blocks = body.messages.flatMap(message => Array.isArray(message.content) ? message.content : []) as { type: string, content?: unknown }[]
    return blocks.find(block => block.type === 'tool_result')!.content as Part[]
  }
  const stored = session.turns.flatMap(turn => turn.content).find(block => block.type === 'tool_result') as { output: { type: string, data: string }[] }
  return { first: resultContent(1), later: resultContent(2), stored }
}

describe('a document declared application/pdf goes out as a PDF only when its bytes are one', () => {
  it('bytes of HTML, or none, go out as a note, on every request; real PDFs as documents; the session keeps all as they came', async () => {
    const { first, later, stored } = await sendDocuments([
      { data: HTML, name: 'report.pdf' },
      { data: '' },
      { data: PDF, name: 'real.pdf' },
      { data: PDF_AFTER_PREAMBLE },
    ])
    expect(first.map(part => part.type)).toEqual(['text', 'text', 'document', 'document'])
    expect(first[0].text).toBe('[Document "report.pdf" (declared application/pdf) left out of the request: its bytes are not a PDF.]')
    expect(first[1].text).toBe('[Document (declared application/pdf) left out of the request: it has no data.]')
    expect(first[2].source).toEqual({ type: 'base64', media_type: 'application/pdf', data: PDF })
    expect(first[3].source?.data).toBe(PDF_AFTER_PREAMBLE)
    expect(later).toEqual(first)
    expect(stored.output.map(part => [part.type, part.data])).toEqual([['document', HTML], ['document', ''], ['document', PDF], ['document', PDF_AFTER_PREAMBLE]])
  })

  it('a PDF in the prompt is checked the same way', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'ok' } })
    const agent = createAgent({ provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-sonnet-4-5' }) })
    await agent.run({ prompt: [{ type: 'text', text: 'summarize' }, { type: 'document', encoding: 'base64', mediaType: 'application/pdf', data: HTML, name: 'page.pdf' }] })
    const body = fake.requests[0].body as { messages: { content: Part[] }[] }
    expect(body.messages[0].content.map(part => part.type)).toEqual(['text', 'text'])
    expect(body.messages[0].content[1].text).toContain('[Document "page.pdf" (declared application/pdf) left out of the request')
  })
})

describe('sniffImageType with whitespace in the base64', () => {
  const WEBP = Buffer.from('RIFF\x1A\x00\x00\x00WEBPVP8L', 'latin1').toString('base64')
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='

  it('finds the type of an encoding that starts with whitespace or is wrapped in short lines', () => {
    const wrapped = (text: string, width: number) => text.match(new RegExp(`.{1,${width}}`, 'g'))!.join('\r\n')
    expect(sniffImageType(`\n  ${WEBP}`)).toBe('image/webp')
    expect(sniffImageType(wrapped(WEBP, 4))).toBe('image/webp')
    expect(sniffImageType(` ${'\n'.repeat(200)}${wrapped(PNG, 8)}`)).toBe('image/png')
  })
})
