import type { ToolResultContent } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { conversationTag, parsePersistedName, persistedPath } from '../../src/policies/persist-files'
import { PERSIST_MAX_FILE_BYTES, persistedStub, utf8Prefix } from '../../src/policies/persist-results'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { readFile } from '../../src/tools'
import { startFakeAnthropic } from '../support/fake-anthropic'

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

const provider = () => anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' })
const fresh = () => mkdtempSync(join(tmpdir(), 'zidane-persist-'))

/** A build log: numbered lines with multi-byte characters, `lines` long. */
const buildLog = (lines: number) => Array.from({ length: lines }, (_, i) => `step ${i}: compiled módulo ✓ ${'·'.repeat(i % 5)}`).join('\n')

const logTool = tool({
  name: 'build',
  description: 'Run the build',
  input: z.object({ lines: z.number() }),
  execute: ({ lines }) => buildLog(lines),
})

/** The text of each tool_result the request sent, in order. */
function toolResultTexts(request: { body: any }): string[] {
  return (request.body.messages as any[]).flatMap(message => Array.isArray(message.content) ? message.content : []).filter((block: any) => block.type === 'tool_result').map((block: any) => typeof block.content === 'string' ? block.content : block.content.map((part: any) => part.text).join(''))
}

describe('persistThreshold on the Messages wire', () => {
  it('writes a large result to <dir>/<id>.txt and sends and stores a stub with a preview and the path, byte-stable', async () => {
    const dir = join(fresh(), 'tool-results')
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_big', name: 'build', input: { lines: 400 } }] } },
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_small', name: 'build', input: { lines: 2 } }] } },
      { type: 'turn', turn: { text: 'built' } },
    )
    const session = await createSession()
    const afterSeen: string[] = []
    const agent = createAgent({
      provider: provider(),
      tools: { build: logTool },
      session,
      behavior: { persistThreshold: 4096, persistDir: dir },
      hooks: { 'tool:after': ctx => void afterSeen.push(String(ctx.result)) },
    })
    await agent.run({ prompt: 'Build it.' })

    const names = readdirSync(dir)
    expect(names).toHaveLength(1)
    expect(names[0]).toMatch(/^tool-result-[0-9a-f]{12}-[0-9a-f]{8}-[0-9a-f]{24}-toolu_big\.txt$/)
    expect(parsePersistedName(names[0])?.conversation).toBe(conversationTag(session.id))
    const path = join(dir, names[0])
    expect(readFileSync(path, 'utf8')).toBe(buildLog(400))
    const [second, third] = [toolResultTexts(fake.requests[1]), toolResultTexts(fake.requests[2])]
    const stub = second[0]
    expect(stub).toBe(persistedStub(buildLog(400), { path, bytes: Buffer.byteLength(buildLog(400)), readable: true }))
    expect(stub).toMatch(/^<persisted-output>\nThis tool result was \d+ bytes, too large to keep in the conversation\. The full output is saved at: .*toolu_big\.txt\nRead it with read_file/)
    expect(stub).toContain(utf8Prefix(buildLog(400), 2048))
    expect(Buffer.byteLength(stub)).toBeLessThan(2600)
    // The next request sends the same bytes; the small result stays inline.
    expect(third[0]).toBe(stub)
    expect(third[1]).toBe(buildLog(2))
    expect(afterSeen[0]).toBe(stub)
    const stored = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result')
    expect(stored.map(block => block.output)).toEqual([stub, buildLog(2)])
    await agent.destroy()
  })

  it('persists what tool:transform left, skips excluded tools, and keeps the result inline when the directory cannot be written', async () => {
    const root = fresh()
    const notADir = join(root, 'file')
    writeFileSync(notADir, 'occupied')
    const calls = [{ id: 'c1', name: 'build', input: { lines: 1 } }]
    const run = async (behavior: object, transform?: (text: string) => string) => {
      const scripted = scriptedProvider([{ toolCalls: calls }, { text: 'ok' }])
      const agent = createAgent({
        provider: scripted,
        tools: { build: logTool },
        behavior,
        hooks: transform ? { 'tool:transform': (ctx) => { ctx.result = transform(String(ctx.result)) } } : {},
      })
      await agent.run({ prompt: 'go' })
      await agent.destroy()
      const block = scripted.requests[1].messages.flatMap(message => message.content).find(b => b.type === 'tool_result')!
      return String(block.output)
    }
    const dir = join(root, 'out')
    const grown = await run({ persistThreshold: 100, persistDir: dir }, text => text.repeat(50))
    expect(grown.startsWith('<persisted-output>')).toBe(true)
    expect(readdirSync(dir)).toHaveLength(1)
    expect(readFileSync(join(dir, readdirSync(dir)[0]), 'utf8')).toBe(buildLog(1).repeat(50))

    expect(await run({ persistThreshold: 10, persistDir: join(root, 'x'), persistExcludeTools: ['build'] })).toBe(buildLog(1))
    expect(existsSync(join(root, 'x'))).toBe(false)
    // The "directory" is a file: nothing can be written, and the model still gets the whole output.
    expect(await run({ persistThreshold: 10, persistDir: join(notADir, 'sub') })).toBe(buildLog(1))
  })

  it('keeps a payload whose call id is not a safe file name inside the directory, the id\'s unsafe characters replaced', async () => {
    const dir = fresh()
    const scripted = scriptedProvider([{ toolCalls: [{ id: '../../escape', name: 'build', input: { lines: 50 } }] }, { text: 'ok' }])
    const agent = createAgent({ provider: scripted, tools: { build: logTool }, behavior: { persistThreshold: 10, persistDir: dir } })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    const names = readdirSync(dir)
    expect(names).toHaveLength(1)
    expect(names[0]).toMatch(/^tool-result-[0-9a-f]{12}-[0-9a-f]{8}-[0-9a-f]{24}-\.\._\.\._escape\.txt$/)
    expect(readFileSync(join(dir, names[0]), 'utf8')).toBe(buildLog(50))
  })
})

/** A concurrency-safe tool whose output is `bytes` long and names `tag`, so parallel calls really run together. */
const blobTool = tool({
  name: 'blob',
  description: 'Emit a blob',
  input: z.object({ tag: z.string(), bytes: z.number() }),
  isConcurrencySafe: true,
  execute: async ({ tag, bytes }) => {
    await new Promise(resolve => setTimeout(resolve, 5))
    return `${tag}\n${'b'.repeat(bytes)}`
  },
})

/** The path each persisted stub of a request names, in order. */
function stubPaths(request: { readonly messages: readonly { readonly content: readonly { type: string, output?: unknown }[] }[] }): string[] {
  return request.messages.flatMap(message => message.content).filter(block => block.type === 'tool_result').flatMap((block) => {
    const match = /saved at: (\S+)/.exec(String(block.output))
    return match ? [match[1]] : []
  })
}

describe('persistMaxBytes', () => {
  it('a later batch trims the earlier batches\' files to the cap, and keeps its own', async () => {
    const dir = fresh()
    const calls = ['a', 'b', 'c', 'd'].map(tag => ({ id: `par_${tag}`, name: 'blob', input: { tag, bytes: 4000 } }))
    const scripted = scriptedProvider([{ toolCalls: calls }, { toolCalls: [{ id: 'next', name: 'blob', input: { tag: 'e', bytes: 4000 } }] }, { text: 'ok' }])
    const agent = createAgent({ provider: scripted, tools: { blob: blobTool }, behavior: { persistThreshold: 100, persistDir: dir, persistMaxBytes: 6000 } })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    expect(new Set(stubPaths(scripted.requests[1])).size).toBe(4)
    const after = stubPaths(scripted.requests[2])
    const last = after.at(-1)!
    expect(readFileSync(last, 'utf8')).toBe(`e\n${'b'.repeat(4000)}`)
    // The next batch trims the older files to the cap: only its own file remains.
    expect(readdirSync(dir)).toEqual([last.slice(dir.length + 1)])
  })

  it('never removes what the same batch wrote: four parallel results over the cap all land, each stub names its own file', async () => {
    const dir = fresh()
    const calls = ['a', 'b', 'c', 'd'].map(tag => ({ id: `par_${tag}`, name: 'blob', input: { tag, bytes: 4000 } }))
    const scripted = scriptedProvider([{ toolCalls: calls }, { text: 'ok' }])
    const agent = createAgent({ provider: scripted, tools: { blob: blobTool }, behavior: { persistThreshold: 100, persistDir: dir, persistMaxBytes: 6000 } })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    const paths = stubPaths(scripted.requests[1])
    expect(paths.map(path => readFileSync(path, 'utf8').split('\n')[0]).sort()).toEqual(['a', 'b', 'c', 'd'])
  })

  it('removes only its own conversation\'s payloads, oldest first: files zidane did not write, and other sessions\' files, stay', async () => {
    const dir = fresh()
    mkdirSync(dir, { recursive: true })
    const foreign = ['oldest.txt', 'c1.txt', 'notes.md', `tool-result-${'0'.repeat(12)}-${'0'.repeat(8)}-${'0'.repeat(24)}-other.txt`, 'tool-result-looks-alike.txt']
    for (const name of foreign) writeFileSync(join(dir, name), 'o'.repeat(3000))
    const scripted = scriptedProvider([
      { toolCalls: [{ id: 'first', name: 'build', input: { lines: 100 } }] },
      { toolCalls: [{ id: 'second', name: 'build', input: { lines: 100 } }] },
      { toolCalls: [{ id: 'huge', name: 'build', input: { lines: 2000 } }] },
      { text: 'ok' },
    ])
    const session = await createSession()
    const agent = createAgent({ provider: scripted, tools: { build: logTool }, session, behavior: { persistThreshold: 100, persistDir: dir, persistMaxBytes: 9000 } })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    const own = readdirSync(dir).filter(name => parsePersistedName(name)?.conversation === conversationTag(session.id))
    // The two ~4 KB files fit under 9000 together; the ~80 KB one (over the cap alone) lands and pushes both out.
    expect(own).toHaveLength(1)
    expect(own[0]).toMatch(/-huge\.txt$/)
    expect(readdirSync(dir).sort()).toEqual([...foreign, own[0]].sort())
  })
})

describe('payload names', () => {
  it('repeated call ids in one turn get one file each, and each stub names the file holding its own output', async () => {
    const dir = fresh()
    const calls = ['x', 'y'].map(tag => ({ id: 'dup', name: 'blob', input: { tag, bytes: 500 } }))
    const scripted = scriptedProvider([{ toolCalls: calls }, { text: 'ok' }])
    const session = await createSession()
    const agent = createAgent({ provider: scripted, tools: { blob: blobTool }, session, behavior: { persistThreshold: 100, persistDir: dir } })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    // The session keeps both results (a request may send only one of two results sharing an id).
    const paths = stubPaths({ messages: session.turns })
    expect(new Set(paths).size).toBe(2)
    expect(paths.map(path => readFileSync(path, 'utf8').split('\n')[0]).sort()).toEqual(['x', 'y'])
  })

  it('two sessions sharing persistDir never overwrite each other, under the same call id', async () => {
    const dir = fresh()
    const outputs: string[][] = []
    for (const tag of ['one', 'two']) {
      const scripted = scriptedProvider([{ toolCalls: [{ id: 'toolu_1', name: 'blob', input: { tag, bytes: 500 } }] }, { text: 'ok' }])
      const agent = createAgent({ provider: scripted, tools: { blob: blobTool }, session: await createSession(), behavior: { persistThreshold: 100, persistDir: dir, persistMaxBytes: 600 } })
      await agent.run({ prompt: 'go' })
      await agent.destroy()
      outputs.push(stubPaths(scripted.requests[1]))
    }
    expect(outputs[0][0]).not.toBe(outputs[1][0])
    expect(readFileSync(outputs[0][0], 'utf8').split('\n')[0]).toBe('one')
    expect(readFileSync(outputs[1][0], 'utf8').split('\n')[0]).toBe('two')
  })

  it('any call id names a file directly inside the directory, which eviction recognizes (property)', () => {
    const at = { conversation: conversationTag('s'), turn: 'abcdef01' }
    fc.assert(fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 50 }), (callId, text) => {
      const path = persistedPath('/srv/results', { ...at, callId }, Buffer.from(text))
      expect(path.startsWith('/srv/results/tool-result-')).toBe(true)
      const name = path.slice('/srv/results/'.length)
      expect(name).not.toContain('/')
      expect(parsePersistedName(name)).toEqual(at)
      expect(persistedPath('/srv/results', { ...at, callId }, Buffer.from(`${text}!`))).not.toBe(path)
    }), { numRuns: 300 })
  })
})

describe('what a stub promises', () => {
  /** Persist one result of `text`, then read_file its path with `offset`: the stub, and what read_file answered. */
  async function persistThenRead(text: string, offset?: number) {
    const dir = fresh()
    const emit = tool({ name: 'emit', description: 'Emit', input: z.object({}), execute: () => text })
    const scripted = scriptedProvider([
      { toolCalls: [{ id: 'big', name: 'emit', input: {} }] },
      { respond: request => ({ toolCalls: [{ id: 'look', name: 'read_file', input: { path: stubPaths(request)[0], ...(offset ? { offset } : {}) } }] }) },
      { text: 'ok' },
    ])
    const session = await createSession()
    const agent = createAgent({ provider: scripted, tools: { emit, read_file: readFile }, session, behavior: { persistThreshold: 100, persistDir: dir, persistExcludeTools: ['read_file'] } })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    const results = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result')
    return { stub: String(results[0].output), path: stubPaths(scripted.requests[1])[0], read: results[1] as { output: string | ToolResultContent[], isError?: boolean } }
  }

  it('a result over what read_file loads is cut to it, and the stub says how much was kept; read_file pages to the end of what was kept', async () => {
    // Lines of 1024 bytes in two-byte characters: past read_file's 32 MiB in bytes, while still under the
    // 32 Mi UTF-16 units a tool result may hold (TOOL_OUTPUT_LIMITS), which would cut it first.
    const body = `${'é'.repeat(511)}r`
    const line = `${body}\n`
    const text = line.repeat(PERSIST_MAX_FILE_BYTES / 1024 + 100)
    const { stub, path, read } = await persistThenRead(text, PERSIST_MAX_FILE_BYTES / 1024 - 2)
    expect(statSync(path).size).toBe(PERSIST_MAX_FILE_BYTES)
    expect(stub).toContain(`This tool result was ${Buffer.byteLength(text)} bytes, too large to keep in the conversation. Its first ${PERSIST_MAX_FILE_BYTES} bytes are saved at: ${path} (the last ${100 * 1024} bytes were not kept`)
    expect(stub).toContain('Read it with read_file')
    expect(read.isError).not.toBe(true)
    expect(String(read.output)).toContain(`${PERSIST_MAX_FILE_BYTES / 1024}\t${body}`)
  }, 60_000)

  it('a result read_file would not show as text gets a stub that offers no paging, and read_file indeed refuses it', async () => {
    for (const text of [`header\0${'z'.repeat(500)}`, `%PDF-1.7 ${'p'.repeat(500)}`]) {
      const { stub, read } = await persistThenRead(text)
      expect(stub).toContain('It looks like binary data, which read_file does not show as text')
      expect(stub).not.toContain('Read it with read_file')
      expect(read.isError === true || Array.isArray(read.output)).toBe(true)
    }
    const { stub, read } = await persistThenRead(`plain ${'t'.repeat(500)}`)
    expect(stub).toContain('Read it with read_file')
    expect(String(read.output)).toContain(`plain ${'t'.repeat(500)}`)
  })
})

describe('the stub', () => {
  it('is a pure function of the payload and path; its preview never splits a character (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), (text) => {
      const file = { path: '/r/x.txt', bytes: Buffer.byteLength(text), readable: true }
      const stub = persistedStub(text, file)
      expect(persistedStub(text, { ...file })).toBe(stub)
      const preview = utf8Prefix(text, 2048)
      expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(2048)
      expect(text.startsWith(preview)).toBe(true)
      expect(Buffer.from(preview, 'utf8').toString('utf8')).toBe(preview)
      expect(stub).toContain(preview)
    }), { numRuns: 200 })
  })
})
