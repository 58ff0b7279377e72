import type { FakeAnthropic } from '../support/fake-anthropic'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { persistedStub, utf8Prefix } from '../../src/behavior/persist-results'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
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

    const path = join(dir, 'toolu_big.txt')
    expect(readFileSync(path, 'utf8')).toBe(buildLog(400))
    expect(readdirSync(dir)).toEqual(['toolu_big.txt'])
    const [second, third] = [toolResultTexts(fake.requests[1]), toolResultTexts(fake.requests[2])]
    const stub = second[0]
    expect(stub).toBe(persistedStub(buildLog(400), path))
    expect(stub).toMatch(/^<persisted-output>\nThis tool result was \d+ bytes, too large to keep in the conversation\. The full output is saved at: .*toolu_big\.txt\n/)
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
    expect(readFileSync(join(dir, 'c1.txt'), 'utf8')).toBe(buildLog(1).repeat(50))

    expect(await run({ persistThreshold: 10, persistDir: join(root, 'x'), persistExcludeTools: ['build'] })).toBe(buildLog(1))
    expect(existsSync(join(root, 'x'))).toBe(false)
    // The "directory" is a file: nothing can be written, and the model still gets the whole output.
    expect(await run({ persistThreshold: 10, persistDir: join(notADir, 'sub') })).toBe(buildLog(1))
  })

  it('names a payload whose call id is not a safe file name by its hash, inside the directory', async () => {
    const dir = fresh()
    const scripted = scriptedProvider([{ toolCalls: [{ id: '../../escape', name: 'build', input: { lines: 50 } }] }, { text: 'ok' }])
    const agent = createAgent({ provider: scripted, tools: { build: logTool }, behavior: { persistThreshold: 10, persistDir: dir } })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    const names = readdirSync(dir)
    expect(names).toHaveLength(1)
    expect(names[0]).toMatch(/^id-[0-9a-f]{32}\.txt$/)
    expect(readFileSync(join(dir, names[0]), 'utf8')).toBe(buildLog(50))
  })
})

describe('persistMaxBytes', () => {
  it('removes the oldest payloads by mtime until the rest fit, never the one just written', async () => {
    const dir = fresh()
    mkdirSync(dir, { recursive: true })
    const old = (name: string, bytes: number, ageSeconds: number) => {
      writeFileSync(join(dir, name), 'o'.repeat(bytes))
      const when = Date.now() / 1000 - ageSeconds
      utimesSync(join(dir, name), when, when)
    }
    old('oldest.txt', 3000, 300)
    old('older.txt', 3000, 200)
    old('recent.txt', 3000, 100)
    writeFileSync(join(dir, 'notes.md'), 'not a payload')
    const scripted = scriptedProvider([{ toolCalls: [{ id: 'new', name: 'build', input: { lines: 100 } }] }, { toolCalls: [{ id: 'huge', name: 'build', input: { lines: 2000 } }] }, { text: 'ok' }])
    const agent = createAgent({ provider: scripted, tools: { build: logTool }, behavior: { persistThreshold: 100, persistDir: dir, persistMaxBytes: 9000 } })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    // After the first write (~4 KB) the two oldest go to get under 9000; the second (~80 KB, over the cap alone) leaves only itself.
    expect(readdirSync(dir).sort()).toEqual(['huge.txt', 'notes.md'])
  })
})

describe('the stub', () => {
  it('is a pure function of the payload and path; its preview never splits a character (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), (text) => {
      const stub = persistedStub(text, '/r/x.txt')
      expect(persistedStub(text, '/r/x.txt')).toBe(stub)
      const preview = utf8Prefix(text, 2048)
      expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(2048)
      expect(text.startsWith(preview)).toBe(true)
      expect(Buffer.from(preview, 'utf8').toString('utf8')).toBe(preview)
      expect(stub).toContain(preview)
    }), { numRuns: 200 })
  })
})
