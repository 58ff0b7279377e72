/**
 * The released-format corpus (`test/fixtures/sessions/`): every fixture must
 * load through the file store with its key facts intact, and import into
 * every other store unchanged. Later format versions must keep this passing.
 */

import type { SessionContentBlock } from '../../src/core/content'
import type { SessionData, SessionStore } from '../../src/session/types'
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { createSqliteStore } from '../../src/session/sqlite'
import { createFileStore, createMemoryStore, createRemoteStore, createSessionStoreHandler } from '../../src/session/stores'
import { userTurn } from './sample-turns'
import { tempDirForFile } from './temp-dir'

const CORPUS = fileURLToPath(new URL('../fixtures/sessions/', import.meta.url))
const freshDir = tempDirForFile('fixtures')

/** What must hold for each fixture, beyond loading at all. */
const FACTS: Record<string, (data: SessionData) => void> = {
  'v1/tool-loop': (data) => {
    expect(data).toMatchObject({ createdAt: 1764460800000, updatedAt: 1764460808960, metadata: { title: 'Fix the failing date test' } })
    expect(data.turns.map(turn => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant'])
    expect(blocks(data, 'thinking')[0]).toMatchObject({ signatureProducer: 'anthropic', signature: expect.stringMatching(/^Er/) })
    expect(data.turns.at(-1)?.usage).toMatchObject({ finishReason: 'stop', cost: 0.00231 })
    expect(data.runs).toEqual([expect.objectContaining({ id: 'run_1', status: 'completed', stopReason: 'completed', usage: expect.objectContaining({ turns: 3 }) })])
  },
  'v1/multimodal-error': (data) => {
    expect(data.metadata).toBeUndefined()
    const image = blocks(data, 'image')[0] as { data: string, mediaType: string }
    expect(Buffer.from(image.data, 'base64').subarray(1, 4).toString()).toBe('PNG')
    expect(blocks(data, 'document')[0]).toMatchObject({ encoding: 'text', name: 'repro.txt' })
    expect(blocks(data, 'redacted_thinking')).toHaveLength(1)
    const result = blocks(data, 'tool_result')[0] as { output: { type: string }[] }
    expect(result.output.map(part => part.type)).toEqual(['text', 'image'])
    expect(data.turns[0].content[0]).toMatchObject({ text: expect.stringContaining('🤔 ログイン') })
    expect(data.runs).toEqual([expect.objectContaining({ id: 'run_a', status: 'error', error: { name: 'AgentProviderError', message: expect.stringContaining('Overloaded') } })])
  },
  'v1/crashed-run': (data) => {
    // The torn last line (run_2's completion) never committed: run_2 is still running.
    expect(data.turns.map(turn => turn.id)).toEqual(['t-1', 't-2', 't-3', 't-4', 't-5'])
    expect(data.turns[2]).toMatchObject({ role: 'user', injected: 'continue-length' })
    expect(data.turns[3].aborted).toBe(true)
    expect(data.runs.map(run => [run.id, run.status])).toEqual([['run_1', 'running'], ['run_2', 'running']])
    expect(data.runs[1].resumedFromRunId).toBe('run_1')
    expect(data.updatedAt).toBe(1764633704500)
  },
  'v1/subagents': (data) => {
    expect(data.metadata).toEqual({ title: 'Map the repository', owner: { id: 42, name: 'Ada' } })
    expect(data.turns.map(turn => turn.role)).toEqual(['system', 'command', 'user', 'assistant', 'user', 'assistant', 'user', 'user', 'assistant'])
    expect(data.turns[1].display).toBe('/model gpt-5.2')
    expect(data.runs.map(run => [run.id, run.status])).toEqual([['run_1', 'completed'], ['run_2', 'completed']])
    expect(data.runs[1]).toMatchObject({ parentRunId: 'run_1', parentCallId: 'call_spawn_1', label: 'child-1', agent: { name: 'explorer' } })
    expect(data.turns.filter(turn => turn.runId === 'run_2').map(turn => turn.id)).toEqual(['c-1', 'c-2'])
    expect(blocks(data, 'compact-summary')[0]).toMatchObject({ replacesTurnIds: ['p-1', 'p-2', 'p-3'] })
    expect(blocks(data, 'tool_result')[1]).toMatchObject({ calls: [{ name: 'read_file', line: 1 }] })
  },
}

function blocks(data: SessionData, type: SessionContentBlock['type']): SessionContentBlock[] {
  return data.turns.flatMap(turn => turn.content).filter(block => block.type === type)
}

/** Every fixture file, as `v1/name` keys. */
function corpus(): string[] {
  return readdirSync(CORPUS, { withFileTypes: true })
    .filter(entry => entry.isDirectory())
    .flatMap(version => readdirSync(join(CORPUS, version.name)).filter(name => name.endsWith('.jsonl')).map(name => `${version.name}/${name.slice(0, -6)}`))
    .sort()
}

/** Load a fixture through a file store reading a copy of it. */
async function loadFixture(key: string): Promise<{ data: SessionData, store: SessionStore }> {
  const dir = freshDir()
  mkdirSync(dir, { recursive: true })
  const id = key.split('/')[1]
  copyFileSync(join(CORPUS, `${key}.jsonl`), join(dir, `${id}.jsonl`))
  const store = createFileStore({ dir })
  const data = await store.load(id)
  expect(data, `${key} should load`).toBeDefined()
  return { data: data!, store }
}

/** Write a loaded session into another store with the store's own calls. */
async function importInto(store: SessionStore, data: SessionData): Promise<void> {
  await store.create({ id: data.id, createdAt: data.createdAt, metadata: data.metadata })
  await store.appendTurns(data.id, data.turns)
  for (const run of data.runs)
    await store.saveRun(data.id, run)
}

const server = createServer(createSessionStoreHandler(createMemoryStore()))
await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
afterAll(() => new Promise<void>((resolve) => {
  server.closeAllConnections()
  server.close(() => resolve())
}))

const IMPORTERS: Record<string, () => SessionStore> = {
  memory: () => createMemoryStore(),
  sqlite: () => createSqliteStore({ path: join(freshDir(), 'import.db') }),
  remote: () => createRemoteStore({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, retries: 0 }),
  file: () => createFileStore({ dir: freshDir() }),
}

describe('session fixture corpus', () => {
  it('has facts for every fixture, and every fixture has a file', () => {
    expect(corpus()).toEqual(Object.keys(FACTS).sort())
  })

  describe.each(Object.keys(FACTS))('%s', (key) => {
    it('loads through the file store with its facts intact', async () => {
      const { data } = await loadFixture(key)
      expect(data.version).toBe(1)
      expect(data.id).toBe(key.split('/')[1])
      FACTS[key](data)
      // Every tool call the fixture holds is answered by a result (or cut off by a crash with no call made).
      const calls = blocks(data, 'tool_call').map(block => (block as { id: string }).id)
      const results = new Set(blocks(data, 'tool_result').map(block => (block as { callId: string }).callId))
      expect(calls.filter(id => !results.has(id))).toEqual([])
    })

    it.each(Object.keys(IMPORTERS))('imports into the %s store unchanged', async (name) => {
      const { data } = await loadFixture(key)
      const store = IMPORTERS[name]()
      try {
        await importInto(store, data)
        const { updatedAt: _ignored, ...expected } = data
        const { updatedAt: _also, ...loaded } = (await store.load(data.id))!
        expect(loaded).toEqual(expected)
        FACTS[key]({ ...loaded, updatedAt: data.updatedAt })
      }
      finally {
        await store.delete(data.id)
        await store.close?.()
      }
    })

    it('takes new turns after loading, leaving the fixture itself untouched', async () => {
      const before = readFileSync(join(CORPUS, `${key}.jsonl`))
      const { data, store } = await loadFixture(key)
      await store.appendTurns(data.id, [userTurn('appended', 'one more')])
      const after = (await store.load(data.id))!
      expect(after.turns).toEqual([...data.turns, userTurn('appended', 'one more')])
      expect(readFileSync(join(CORPUS, `${key}.jsonl`)).equals(before)).toBe(true)
    })
  })
})
