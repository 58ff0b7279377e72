import type { Server } from 'node:http'
import type { SessionStore } from '../../src/session'
import type { ToolDef } from '../../src/tools/types'
import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createFileStore, createMemoryStore, createRemoteStore, createSession, createSessionStoreHandler, loadSession } from '../../src/session'
import { createSqliteStore } from '../../src/session/sqlite'
import { scriptedProvider } from '../../src/testing'
import { wait } from '../support/helpers'
import { userTurn } from './sample-turns'
import { tempDirForFile } from './temp-dir'

const freshDir = tempDirForFile('save-origin')
let server: Server

beforeAll(async () => {
  server = createServer(createSessionStoreHandler(createMemoryStore()))
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise(resolve => server.close(resolve))
})

const STORES: Record<string, () => SessionStore> = {
  memory: () => createMemoryStore(),
  file: () => createFileStore({ dir: freshDir() }),
  sqlite: () => createSqliteStore({ path: `${freshDir()}.db` }),
  remote: () => createRemoteStore({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, retries: 0 }),
}

/** Roles of the turns the store holds now, read back through a fresh load. */
async function storedRoles(store: SessionStore, id: string): Promise<string[]> {
  const loaded = await loadSession(id, { store })
  return loaded.turns.map(turn => `${turn.role}${turn.content.some(block => block.type === 'tool_call') ? '+call' : ''}`)
}

describe.each(Object.keys(STORES))('%s store', (kind) => {
  it('records SessionRun.origin with its display; the full prompt still reaches the model and the turns', async () => {
    const store = STORES[kind]()
    const session = await createSession({ store })
    const provider = scriptedProvider([{ text: 'reviewed' }])
    const agent = createAgent({ provider, session })
    const prompt = 'Review every file under src/ for unchecked input sizes and report each one with its line.'
    await agent.run({ prompt, runOrigin: { display: '/review src', command: 'review' } })
    await agent.destroy()
    const loaded = await loadSession(session.id, { store })
    expect(loaded.runs[0].origin).toEqual({ display: '/review src', command: 'review' })
    expect(loaded.turns[0].content).toEqual([{ type: 'text', text: prompt }])
    expect(JSON.stringify(provider.requests[0].messages)).toContain(prompt)
    expect(JSON.stringify(provider.requests[0].messages)).not.toContain('/review src')
  })

  it('save() stores what a persistTurns: false run holds back, up to its last settled turn, and nothing twice', async () => {
    const store = STORES[kind]()
    const session = await createSession({ store })
    let duringRun: string[] = []
    const checkpoint: ToolDef = {
      spec: { name: 'checkpoint', description: 'save', inputSchema: { type: 'object' } },
      execute: async (_input, ctx) => {
        await ctx.session!.save()
        duringRun = await storedRoles(store, session.id)
        return 'saved'
      },
    }
    const noop: ToolDef = { spec: { name: 'noop', description: 'noop', inputSchema: { type: 'object' } }, execute: () => 'ok' }
    const agent = createAgent({
      provider: scriptedProvider([{ toolCalls: [{ name: 'noop', input: {} }] }, { toolCalls: [{ name: 'checkpoint', input: {} }] }, { text: 'done' }]),
      session,
      tools: { noop, checkpoint },
      behavior: { persistTurns: false },
    })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    // The prompt was stored up front; save() added the first call with its result, and kept back the call still running.
    expect(duringRun).toEqual(['user', 'assistant+call', 'user'])
    expect(await storedRoles(store, session.id)).toEqual(['user', 'assistant+call', 'user', 'assistant+call', 'user', 'assistant'])
  })
})

describe('sessionRun.origin checks', () => {
  it('refuses a runOrigin whose display is not a string before any request', async () => {
    const provider = scriptedProvider([{ text: 'never' }])
    const agent = createAgent({ provider, session: await createSession() })
    await expect(agent.run({ prompt: 'go', runOrigin: { display: 42 as never } })).rejects.toThrow('runOrigin display that is a number, not a string')
    await expect(agent.run({ prompt: 'go', runOrigin: 'review' as never })).rejects.toThrow(TypeError)
    expect(provider.requests).toHaveLength(0)
  })

  it('a stored run with a broken origin is a corrupt record', async () => {
    const store = createMemoryStore()
    const session = await createSession({ store })
    await store.saveRun(session.id, { id: 'r1', status: 'completed', startedAt: 1, origin: { display: ['not', 'text'] as never } })
    await expect(loadSession(session.id, { store })).rejects.toMatchObject({ code: 'corrupt' })
    const skipped = await loadSession(session.id, { store, onCorrupt: 'skip' })
    expect(skipped.skipped.map(record => record.kind)).toEqual(['run'])
  })
})

describe('session.save()', () => {
  it('waits for every write queued before it', async () => {
    const backend = createMemoryStore()
    const slow: SessionStore = { ...backend, appendTurns: async (...args) => {
      await wait(40)
      return backend.appendTurns(...args)
    } }
    const session = await createSession({ store: slow })
    void session.appendTurns([userTurn('t1', 'queued, not awaited')])
    expect((await backend.load(session.id))!.turns).toHaveLength(0)
    await session.save()
    expect((await backend.load(session.id))!.turns.map(turn => turn.id)).toEqual(['t1'])
  })

  it('rejects when its write fails, and a later save() stores what is still unsaved', async () => {
    const backend = createMemoryStore()
    let failNext = false
    const flaky: SessionStore = { ...backend, appendTurns: async (...args) => {
      if (failNext) {
        failNext = false
        throw new Error('disk full')
      }
      return backend.appendTurns(...args)
    } }
    const session = await createSession({ store: flaky })
    const results: string[] = []
    const checkpoint: ToolDef = {
      spec: { name: 'checkpoint', description: 'save', inputSchema: { type: 'object' } },
      execute: async (_input, ctx) => {
        failNext = true
        await ctx.session!.save().then(() => results.push('saved'), (error: Error) => results.push(error.message))
        await ctx.session!.save()
        results.push(`stored ${(await backend.load(session.id))!.turns.length}`)
        return 'ok'
      },
    }
    const agent = createAgent({
      provider: scriptedProvider([{ toolCalls: [{ name: 'checkpoint', input: {} }] }, { toolCalls: [{ name: 'checkpoint', input: {} }] }, { text: 'done' }]),
      session,
      tools: { checkpoint },
      behavior: { persistTurns: false },
    })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    // First tool: nothing to flush past the prompt (the only new turn is the call in flight), so the failure is not hit.
    // Second tool: the first call and its result are unsaved; the first save() fails, the second stores them.
    expect(results).toEqual(['saved', 'stored 1', 'disk full', 'stored 3'])
    expect((await backend.load(session.id))!.turns).toHaveLength(6)
  })
})
