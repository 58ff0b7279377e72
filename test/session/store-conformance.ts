/**
 * What every `SessionStore` must do, as one suite each store's test file
 * runs against a fresh store per test: `describeStoreConformance('file', () => createFileStore({ dir }))`.
 */

import type { SessionTurn } from '../../src/core/content'
import type { RunState } from '../../src/core/run-state'
import type { TurnUsage } from '../../src/core/stats'
import type { SessionStore } from '../../src/session/types'
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkRunState, createRunState } from '../../src/core/run-state'
import { SessionLeaseError, SessionStoreError } from '../../src/errors'
import { SESSION_FORMAT_VERSION } from '../../src/session/types'
import { assistantTurn, AWKWARD_TEXT, run, toolResultTurn, userTurn } from './sample-turns'

/**
 * Ways to damage a store's records behind its back, for the broken-record
 * tests. `turn` stores one turn record as the given JSON (by default through
 * `appendTurns`, which checks nothing); `run` and `garbage` (text that is no
 * JSON at all) need raw access to the backing storage, so only stores that
 * can hold them provide them.
 */
export interface StoreTamper {
  turn?: (id: string, json: string) => Promise<void>
  run?: (id: string, json: string) => Promise<void>
  garbage?: (id: string, text: string) => Promise<void>
}

export interface TamperableStore {
  store: SessionStore
  tamper: StoreTamper
}

export type MakeStore = () => SessionStore | TamperableStore | Promise<SessionStore | TamperableStore>

const CREATED_AT = 1_764_460_800_000
const SAFE_ID = /^[\w-]+$/

async function expectStoreError(promise: Promise<unknown>, code: SessionStoreError['code']): Promise<void> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  expect((error as SessionStoreError).code).toBe(code)
}

/** Any UTF-16 string, lone surrogates included: JSON escapes them, so every store must keep them. */
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xFFFF }).map(code => String.fromCharCode(code)), maxLength: 40 })

const turnArbitrary = fc.record({
  id: fc.uuid(),
  role: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const, 'command' as const),
  text: anyText,
  createdAt: fc.integer({ min: 0, max: 2 ** 42 }),
  injected: fc.option(fc.constantFrom('steer', 'nudge', 'continue-length'), { nil: undefined }),
}).map(({ text, injected, ...turn }): SessionTurn => ({
  ...turn,
  content: [{ type: 'text', text }],
  ...(injected === undefined ? {} : { injected }),
}))

/** Turn records that must never load as turns, with a word of what the error should say. */
const BROKEN_TURNS: readonly { json: string, says: RegExp }[] = [
  { json: 'null', says: /null/ },
  { json: '{"id":"no-content","role":"user","createdAt":1}', says: /no content/ },
  { json: '{"id":"bad-role","role":"robot","content":[],"createdAt":1}', says: /role "robot"/ },
  { json: '{"id":7,"role":"user","content":[],"createdAt":1}', says: /id/ },
  { json: '{"id":"str-content","role":"user","content":"hi","createdAt":1}', says: /not an array/ },
  { json: '{"id":"null-block","role":"user","content":[null],"createdAt":1}', says: /block 0/ },
  { json: '{"id":"no-time","role":"user","content":[]}', says: /createdAt/ },
  { json: '{"id":"bad-call","role":"assistant","content":[{"type":"tool_call","id":"c","name":"x","input":null}],"createdAt":1}', says: /input/ },
  { json: '{"id":"bad-result","role":"user","content":[{"type":"tool_result","callId":"c","output":null}],"createdAt":1}', says: /output/ },
  { json: '{"id":"bad-text","role":"user","content":[{"type":"text","text":42}],"createdAt":1}', says: /text/ },
  { json: '[1,2,3]', says: /array/ },
]

function storeAndTamper(made: SessionStore | TamperableStore): TamperableStore {
  return 'store' in made && 'tamper' in made ? made : { store: made, tamper: {} }
}

export function describeStoreConformance(name: string, makeStore: MakeStore): void {
  describe(`${name} store conformance`, () => {
    let store: SessionStore
    let tamper: Required<Pick<StoreTamper, 'turn'>> & StoreTamper

    beforeEach(async () => {
      const made = storeAndTamper(await makeStore())
      store = made.store
      tamper = { turn: (id, json) => store.appendTurns(id, [JSON.parse(json) as SessionTurn]), ...made.tamper }
    })
    afterEach(async () => {
      await store.close?.()
    })

    it('mints a fresh id when create is given none', async () => {
      const first = await store.create({ createdAt: CREATED_AT })
      const second = await store.create({ createdAt: CREATED_AT })
      expect(first.id).toMatch(SAFE_ID)
      expect(second.id).not.toBe(first.id)
      expect((await store.load(first.id))?.id).toBe(first.id)
    })

    it('keeps a given id and rejects a second session with it', async () => {
      const data = await store.create({ id: 'chat-1', createdAt: CREATED_AT, metadata: { title: 'first' } })
      expect(data).toMatchObject({ id: 'chat-1', version: SESSION_FORMAT_VERSION, createdAt: CREATED_AT, metadata: { title: 'first' }, turns: [], runs: [] })
      expect(typeof data.updatedAt).toBe('number')
      await expectStoreError(store.create({ id: 'chat-1', createdAt: CREATED_AT + 1, metadata: { title: 'second' } }), 'exists')
      expect((await store.load('chat-1'))?.metadata).toEqual({ title: 'first' })
    })

    it('stores no metadata when none is given', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT })
      const loaded = await store.load(id)
      expect(loaded).toMatchObject({ id, version: SESSION_FORMAT_VERSION, createdAt: CREATED_AT, turns: [], runs: [] })
      expect(loaded?.metadata).toBeUndefined()
    })

    it('loads a missing session as undefined and rejects writes to it with not_found', async () => {
      expect(await store.load('missing')).toBeUndefined()
      await expectStoreError(store.appendTurns('missing', [userTurn('t1', 'hi')]), 'not_found')
      await expectStoreError(store.saveRun('missing', run('run_1')), 'not_found')
      expect(await store.load('missing')).toBeUndefined()
    })

    it('rejects ids that are not safe file names with invalid_id', async () => {
      for (const id of ['', '.', '..', '../escape', 'a/b', 'a\\b', '.hidden', 'white space', 'x'.repeat(129)]) {
        await expectStoreError(store.create({ id, createdAt: CREATED_AT }), 'invalid_id')
        await expectStoreError(store.load(id), 'invalid_id')
        await expectStoreError(store.appendTurns(id, [userTurn('t1', 'hi')]), 'invalid_id')
        await expectStoreError(store.delete(id), 'invalid_id')
      }
      expect(await store.list()).toEqual([])
    })

    it('loads appended turns in append order, every field intact', async () => {
      const { id } = await store.create({ id: 'roundtrip', createdAt: CREATED_AT })
      const batches: SessionTurn[][] = [
        [userTurn('t1', 'Fix the failing test')],
        [assistantTurn('t2'), toolResultTurn('t3', 'call_t2')],
        [userTurn('t4', 'Please continue.', { injected: 'continue-length', runId: 'run_1' }), { ...assistantTurn('t5'), aborted: true }],
        [{ id: 't6', role: 'command', content: [{ type: 'text', text: 'context note' }], createdAt: CREATED_AT, display: '/note' }],
      ]
      for (const batch of batches)
        await store.appendTurns(id, batch)
      expect((await store.load(id))?.turns).toEqual(batches.flat())
    })

    it('stores nothing for an empty append', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT })
      await store.appendTurns(id, [userTurn('t1', 'one')])
      await store.appendTurns(id, [])
      expect((await store.load(id))?.turns.map(turn => turn.id)).toEqual(['t1'])
    })

    it('keeps the order of many small appends', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT })
      const ids = Array.from({ length: 200 }, (_, i) => `t${i}`)
      for (const turnId of ids)
        await store.appendTurns(id, [userTurn(turnId, `message ${turnId}`)])
      expect((await store.load(id))?.turns.map(turn => turn.id)).toEqual(ids)
    })

    it('neither loses nor interleaves batches appended concurrently', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT })
      const batches = Array.from({ length: 25 }, (_, b) =>
        Array.from({ length: 4 }, (_, t) => userTurn(`b${b}-t${t}`, `batch ${b} turn ${t} ${'x'.repeat(b * 500)}`)))
      await Promise.all(batches.map(batch => store.appendTurns(id, batch)))
      const loaded = (await store.load(id))!.turns.map(turn => turn.id)
      expect(loaded).toHaveLength(100)
      for (let at = 0; at < loaded.length; at += 4) {
        const batch = loaded[at].split('-')[0]
        expect(loaded.slice(at, at + 4)).toEqual([0, 1, 2, 3].map(t => `${batch}-t${t}`))
      }
      expect(new Set(loaded).size).toBe(100)
    })

    it('round-trips large turns: 2 MB of text and base64 images', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT })
      const image = randomBytes(384 * 1024).toString('base64')
      const big: SessionTurn[] = [
        { id: 'text', role: 'user', createdAt: CREATED_AT, content: [{ type: 'text', text: 'lorem ipsum '.repeat(175_000) }] },
        { id: 'image', role: 'user', createdAt: CREATED_AT, content: [{ type: 'image', data: image, mediaType: 'image/png', name: 'shot.png' }] },
        toolResultTurnWithImage(image),
      ]
      await store.appendTurns(id, big)
      await store.appendTurns(id, [userTurn('after', 'small one after')])
      expect((await store.load(id))?.turns).toEqual([...big, userTurn('after', 'small one after')])
    })

    it('keeps every string exactly: emoji, CJK, controls, separators, lone surrogates', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT, metadata: { title: AWKWARD_TEXT, [AWKWARD_TEXT]: true } })
      const turn: SessionTurn = {
        id: 'awkward',
        role: 'assistant',
        createdAt: CREATED_AT,
        content: [
          { type: 'text', text: AWKWARD_TEXT },
          { type: 'tool_call', id: 'call_1', name: 'write_file', input: { path: '漢字.txt', content: AWKWARD_TEXT, [AWKWARD_TEXT]: AWKWARD_TEXT } },
        ],
      }
      await store.appendTurns(id, [turn])
      await store.saveRun(id, run('run_1', { label: AWKWARD_TEXT }))
      const loaded = await store.load(id)
      expect(loaded?.turns[0]).toEqual(turn)
      expect((loaded?.turns[0].content[0] as { text: string }).text).toBe(AWKWARD_TEXT)
      expect(loaded?.metadata).toEqual({ title: AWKWARD_TEXT, [AWKWARD_TEXT]: true })
      expect(loaded?.runs[0].label).toBe(AWKWARD_TEXT)
    })

    it('loads any sequence of appends as their concatenation', async () => {
      await fc.assert(fc.asyncProperty(fc.array(fc.array(turnArbitrary, { maxLength: 4 }), { maxLength: 6 }), async (batches) => {
        const { id } = await store.create({ createdAt: CREATED_AT })
        for (const batch of batches)
          await store.appendTurns(id, batch)
        expect((await store.load(id))?.turns).toEqual(batches.flat())
        await store.delete(id)
      }), { numRuns: 15 })
    })

    it('upserts runs by id, keeping the order they started in', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT })
      const before = (await store.load(id))!.updatedAt
      await store.saveRun(id, run('run_1'))
      await store.saveRun(id, run('run_2', { parentRunId: 'run_1', parentCallId: 'call_9', label: 'child-1' }))
      const finished = run('run_1', {
        status: 'completed',
        endedAt: CREATED_AT + 5000,
        stopReason: 'completed',
        usage: { input: 100, output: 20, cacheRead: 80, cacheCreation: 0, cost: 0.0012, turns: 2 },
      })
      await store.saveRun(id, finished)
      const loaded = (await store.load(id))!
      expect(loaded.runs).toEqual([finished, run('run_2', { parentRunId: 'run_1', parentCallId: 'call_9', label: 'child-1' })])
      expect(loaded.updatedAt).toBeGreaterThanOrEqual(before)
    })

    it('keeps a run record\'s state (the run as data) exactly, the last save replacing the earlier ones', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT })
      const state = (turnCount: number): RunState => ({
        ...createRunState({ index: 1, provider: 'backup', model: 'b-model' }, { 'tool-budgets': { counts: { shell: turnCount }, steers: [] }, 'steering': null }),
        turnCount,
        pending: [{ content: [{ type: 'text', text: AWKWARD_TEXT }], injected: 'continue-length' }],
        usage: Array.from<TurnUsage>({ length: turnCount }).fill({ input: 10, output: 5, cost: 0.001 }),
        read: { seq: 2, entries: [{ path: '/w/a.txt', hash: 'ab'.repeat(32), source: 'read_file', slice: { offset: 1, limit: 2000, maxBytes: 262144, lineNumbers: true }, seq: 2, driftRefusals: 0 }] },
      })
      await store.saveRun(id, run('run_1', { state: state(1) }))
      await store.saveRun(id, run('run_1', { state: state(2) }))
      const loaded = (await store.load(id))!
      expect(loaded.runs).toEqual([run('run_1', { state: state(2) })])
      expect(checkRunState(loaded.runs[0].state)).toEqual(state(2))
    })

    it('deletes sessions, ignores deleting a missing one, and lets the id be reused', async () => {
      await store.create({ id: 'gone', createdAt: CREATED_AT })
      await store.appendTurns('gone', [userTurn('t1', 'old')])
      await store.create({ id: 'kept', createdAt: CREATED_AT })
      await store.delete('gone')
      await store.delete('gone')
      await store.delete('never-was')
      expect(await store.load('gone')).toBeUndefined()
      expect(await store.list()).toEqual(['kept'])
      await store.create({ id: 'gone', createdAt: CREATED_AT + 1 })
      expect((await store.load('gone'))?.turns).toEqual([])
    })

    it('lists every stored session', async () => {
      expect(await store.list()).toEqual([])
      const ids = ['a', 'b', 'c-3']
      for (const id of ids)
        await store.create({ id, createdAt: CREATED_AT })
      const minted = await store.create({ createdAt: CREATED_AT })
      expect((await store.list()).sort()).toEqual([...ids, minted.id].sort())
    })

    it('hands out copies: mutating what was returned changes nothing stored', async () => {
      const created = await store.create({ id: 'iso', createdAt: CREATED_AT, metadata: { tags: ['a'] } })
      ;(created.metadata!.tags as string[]).push('created')
      created.turns.push(userTurn('ghost', 'not stored'))
      await store.appendTurns('iso', [userTurn('t1', 'original')])
      await store.saveRun('iso', run('run_1'))
      const loaded = (await store.load('iso'))!
      ;(loaded.turns[0].content[0] as { text: string }).text = 'mutated'
      loaded.turns.push(userTurn('ghost', 'not stored'))
      loaded.runs[0].status = 'error'
      ;(loaded.metadata!.tags as string[]).push('loaded')
      const again = (await store.load('iso'))!
      expect(again.turns).toEqual([userTurn('t1', 'original')])
      expect(again.runs).toEqual([run('run_1')])
      expect(again.metadata).toEqual({ tags: ['a'] })
    })

    it('copies its input when called: later changes by the caller are not stored', async () => {
      const metadata = { title: 'before' }
      const creating = store.create({ id: 'input', createdAt: CREATED_AT, metadata })
      metadata.title = 'after'
      await creating
      const turn = userTurn('t1', 'before')
      const appending = store.appendTurns('input', [turn])
      ;(turn.content[0] as { text: string }).text = 'after'
      await appending
      const record = run('run_1')
      const saving = store.saveRun('input', record)
      record.status = 'error'
      await saving
      const loaded = (await store.load('input'))!
      expect(loaded.metadata).toEqual({ title: 'before' })
      expect(loaded.turns).toEqual([userTurn('t1', 'before')])
      expect(loaded.runs).toEqual([run('run_1')])
    })

    it('rejects a batch JSON cannot hold and stores none of it', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT })
      await store.appendTurns(id, [userTurn('t1', 'kept')])
      const cyclic = userTurn('t3', 'cycle') as SessionTurn & { self?: unknown }
      cyclic.self = cyclic
      await expect(store.appendTurns(id, [userTurn('t2', 'fine'), cyclic])).rejects.toThrow()
      expect((await store.load(id))?.turns.map(turn => turn.id)).toEqual(['t1'])
    })

    it('rejects a broken turn on load with a corrupt error naming the session and the record', async () => {
      for (const [i, broken] of BROKEN_TURNS.entries()) {
        const id = `broken-${i}`
        await store.create({ id, createdAt: CREATED_AT })
        await store.appendTurns(id, [userTurn('before', 'sound')])
        await tamper.turn(id, broken.json)
        await store.appendTurns(id, [userTurn('after', 'sound too')])
        const error = await store.load(id).then(() => undefined, (failure: unknown) => failure)
        expect(error, broken.json).toBeInstanceOf(SessionStoreError)
        expect((error as SessionStoreError).code).toBe('corrupt')
        expect((error as SessionStoreError).sessionId).toBe(id)
        expect((error as SessionStoreError).message).toContain(`"${id}"`)
        expect((error as SessionStoreError).message).toContain('onCorrupt')
        expect((error as SessionStoreError).record?.problem, broken.json).toMatch(broken.says)
      }
    })

    it('skips broken turns on request: every sound turn kept in order, each skipped one reported with its stored form', async () => {
      for (const [i, broken] of BROKEN_TURNS.entries()) {
        const id = `skip-${i}`
        await store.create({ id, createdAt: CREATED_AT })
        await store.appendTurns(id, [userTurn('t1', 'one'), assistantTurn('t2')])
        await tamper.turn(id, broken.json)
        await store.appendTurns(id, [toolResultTurn('t3', 'call_t2')])
        const loaded = (await store.load(id, { onCorrupt: 'skip' }))!
        expect(loaded.turns.map(turn => turn.id)).toEqual(['t1', 't2', 't3'])
        expect(loaded.skipped).toHaveLength(1)
        expect(loaded.skipped![0]).toMatchObject({ kind: 'turn', problem: expect.stringMatching(broken.says) })
        expect(JSON.parse(loaded.skipped![0].raw)).toEqual(JSON.parse(broken.json))
        // Skipping changed nothing stored: the session takes appends, and a strict load still refuses.
        await store.appendTurns(id, [userTurn('t4', 'four')])
        expect((await store.load(id, { onCorrupt: 'skip' }))?.turns.map(turn => turn.id)).toEqual(['t1', 't2', 't3', 't4'])
        await expectStoreError(store.load(id), 'corrupt')
      }
    })

    it('loads any mix of sound and broken turns, when skipping, as exactly the sound ones', async () => {
      const entry = fc.oneof(
        turnArbitrary.map(turn => ({ sound: true as const, turn })),
        fc.constantFrom(...BROKEN_TURNS).map(broken => ({ sound: false as const, json: broken.json })),
      )
      let n = 0
      await fc.assert(fc.asyncProperty(fc.array(entry, { maxLength: 12 }), async (entries) => {
        const { id } = await store.create({ id: `mix-${n++}`, createdAt: CREATED_AT })
        for (const item of entries) {
          if (item.sound)
            await store.appendTurns(id, [item.turn])
          else
            await tamper.turn(id, item.json)
        }
        const loaded = (await store.load(id, { onCorrupt: 'skip' }))!
        expect(loaded.turns).toEqual(entries.flatMap(item => item.sound ? [item.turn] : []))
        expect(loaded.skipped?.length ?? 0).toBe(entries.filter(item => !item.sound).length)
        await store.delete(id)
      }), { numRuns: 10 })
    })

    it('reports no skipped records for a sound session', async () => {
      const { id } = await store.create({ createdAt: CREATED_AT })
      await store.appendTurns(id, [userTurn('t1', 'x'), assistantTurn('t2'), toolResultTurn('t3', 'call_t2')])
      expect(Object.keys((await store.load(id, { onCorrupt: 'skip' }))!)).not.toContain('skipped')
    })

    it('handles a record that is no JSON at all (where the store can hold one)', async ({ skip }) => {
      if (!tamper.garbage)
        return skip()
      const { id } = await store.create({ id: 'garbage', createdAt: CREATED_AT })
      await store.appendTurns(id, [userTurn('t1', 'one')])
      await tamper.garbage(id, 'not json at all {')
      await store.appendTurns(id, [userTurn('t2', 'two')])
      const error = await store.load(id).then(() => undefined, (failure: unknown) => failure) as SessionStoreError
      expect(error).toBeInstanceOf(SessionStoreError)
      expect(error).toMatchObject({ code: 'corrupt', sessionId: id, record: { problem: 'is not valid JSON' } })
      const loaded = (await store.load(id, { onCorrupt: 'skip' }))!
      expect(loaded.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
      expect(loaded.skipped).toEqual([expect.objectContaining({ raw: 'not json at all {', problem: 'is not valid JSON' })])
    })

    it('handles a broken run record (where the store can hold one)', async ({ skip }) => {
      if (!tamper.run)
        return skip()
      const { id } = await store.create({ id: 'runs', createdAt: CREATED_AT })
      await store.saveRun(id, run('run_1'))
      await tamper.run(id, '{"id":"run_x","status":"exploded","startedAt":1}')
      await store.saveRun(id, run('run_2'))
      const error = await store.load(id).then(() => undefined, (failure: unknown) => failure) as SessionStoreError
      expect(error).toMatchObject({ code: 'corrupt', sessionId: id, record: { problem: expect.stringContaining('"exploded"') } })
      const loaded = (await store.load(id, { onCorrupt: 'skip' }))!
      expect(loaded.runs.map(record => record.id)).toEqual(['run_1', 'run_2'])
      expect(loaded.skipped).toHaveLength(1)
      expect(loaded.skipped![0].raw).toContain('exploded')
    })

    describe('the session lease', () => {
      const LONG = 60_000
      /** Let a lease renewed to `SHORT` ms run out (a timer never fires early by more than a millisecond). */
      const SHORT = 30
      const expire = () => new Promise(resolve => setTimeout(resolve, SHORT * 3))
      const leaseErrorOf = async (promise: Promise<unknown>): Promise<SessionLeaseError> => {
        const error = await promise.then(() => undefined, (failure: unknown) => failure)
        expect(error).toBeInstanceOf(SessionLeaseError)
        return error as SessionLeaseError
      }

      it('grants it to one owner and refuses a second with SessionLeaseError naming the session and the holder', async () => {
        const { id } = await store.create({ id: 'leased', createdAt: CREATED_AT })
        const before = Date.now()
        const lease = await store.acquireLease!(id, 'owner-a', LONG)
        expect(lease).toMatchObject({ sessionId: id, owner: 'owner-a' })
        expect(lease.expiresAt).toBeGreaterThanOrEqual(before + LONG)
        expect(lease.previousOwner).toBeUndefined()
        const refused = await leaseErrorOf(store.acquireLease!(id, 'owner-b', LONG))
        expect(refused).toMatchObject({ sessionId: id, reason: 'held', owner: 'owner-b', holder: { sessionId: id, owner: 'owner-a', expiresAt: lease.expiresAt } })
        expect(refused.message).toContain(`"${id}"`)
        expect(refused.message).toContain('owner-a')
        // The holder may take it again: acquiring is idempotent for its owner.
        expect((await store.acquireLease!(id, 'owner-a', LONG)).owner).toBe('owner-a')
        await expectStoreError(store.acquireLease!('no-such-session', 'owner-a', LONG), 'not_found')
      })

      it('renews for the holder only', async () => {
        const { id } = await store.create({ createdAt: CREATED_AT })
        const lease = await store.acquireLease!(id, 'owner-a', LONG)
        const renewed = await store.renewLease!(id, 'owner-a', 2 * LONG)
        expect(renewed).toMatchObject({ sessionId: id, owner: 'owner-a' })
        expect(renewed.expiresAt).toBeGreaterThan(lease.expiresAt)
        const refused = await leaseErrorOf(store.renewLease!(id, 'owner-b', LONG))
        expect(refused).toMatchObject({ sessionId: id, reason: 'lost', owner: 'owner-b', holder: { owner: 'owner-a' } })
        expect((await leaseErrorOf(store.acquireLease!(id, 'owner-b', LONG))).holder?.expiresAt).toBe(renewed.expiresAt)
      })

      it('hands an expired lease over, and its old owner can no longer renew it', async () => {
        const { id } = await store.create({ createdAt: CREATED_AT })
        await store.acquireLease!(id, 'owner-a', LONG)
        await store.renewLease!(id, 'owner-a', SHORT)
        await expire()
        const taken = await store.acquireLease!(id, 'owner-b', LONG)
        expect(taken).toMatchObject({ owner: 'owner-b', previousOwner: 'owner-a' })
        expect(await leaseErrorOf(store.renewLease!(id, 'owner-a', LONG))).toMatchObject({ reason: 'lost', holder: { owner: 'owner-b' } })
      })

      it('frees it on release; a release by anyone else changes nothing', async () => {
        const { id } = await store.create({ createdAt: CREATED_AT })
        await store.acquireLease!(id, 'owner-a', LONG)
        await store.releaseLease!(id, 'owner-b')
        await leaseErrorOf(store.acquireLease!(id, 'owner-b', LONG))
        await store.releaseLease!(id, 'owner-a')
        await store.releaseLease!(id, 'owner-a')
        expect(await store.acquireLease!(id, 'owner-b', LONG)).toMatchObject({ owner: 'owner-b', previousOwner: 'owner-a' })
        expect(await leaseErrorOf(store.renewLease!(id, 'owner-a', LONG))).toMatchObject({ reason: 'lost' })
      })

      it('fences writes: a writer that lost its lease stores nothing, and nothing interleaves', async () => {
        const { id } = await store.create({ createdAt: CREATED_AT })
        await store.acquireLease!(id, 'owner-a', LONG)
        await store.appendTurns(id, [userTurn('a1', 'from a')], { owner: 'owner-a' })
        await store.saveRun(id, run('run_a'), { owner: 'owner-a' })
        // Nobody else writes while the lease is held: not a second owner, not an unleased writer.
        await leaseErrorOf(store.appendTurns(id, [userTurn('b0', 'from b')], { owner: 'owner-b' }))
        expect(await leaseErrorOf(store.appendTurns(id, [userTurn('x0', 'unleased')]))).toMatchObject({ reason: 'held', holder: { owner: 'owner-a' } })
        await leaseErrorOf(store.saveRun(id, run('run_x')))
        // The lease runs out and another owner takes over: the old writer is fenced off.
        await store.renewLease!(id, 'owner-a', SHORT)
        await expire()
        expect(await leaseErrorOf(store.appendTurns(id, [userTurn('a2', 'late a')], { owner: 'owner-a' }))).toMatchObject({ reason: 'lost', owner: 'owner-a' })
        await store.acquireLease!(id, 'owner-b', LONG)
        expect(await leaseErrorOf(store.appendTurns(id, [userTurn('a3', 'later a')], { owner: 'owner-a' }))).toMatchObject({ reason: 'lost', holder: { owner: 'owner-b' } })
        await leaseErrorOf(store.saveRun(id, run('run_a', { status: 'completed' }), { owner: 'owner-a' }))
        await store.appendTurns(id, [userTurn('b1', 'from b')], { owner: 'owner-b' })
        await store.saveRun(id, run('run_b'), { owner: 'owner-b' })
        const loaded = (await store.load(id))!
        expect(loaded.turns.map(turn => turn.id)).toEqual(['a1', 'b1'])
        expect(loaded.runs).toEqual([run('run_a'), run('run_b')])
      })

      it('takes unleased writes while nobody holds the lease, and again once it is released', async () => {
        const { id } = await store.create({ createdAt: CREATED_AT })
        await store.appendTurns(id, [userTurn('t1', 'before any lease')])
        await store.acquireLease!(id, 'owner-a', LONG)
        await store.releaseLease!(id, 'owner-a')
        await store.appendTurns(id, [userTurn('t2', 'after the release')])
        expect((await store.load(id))?.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
      })

      it('drops the lease with its session', async () => {
        await store.create({ id: 'short-lived', createdAt: CREATED_AT })
        await store.acquireLease!('short-lived', 'owner-a', LONG)
        await store.delete('short-lived')
        await store.create({ id: 'short-lived', createdAt: CREATED_AT })
        expect(await store.acquireLease!('short-lived', 'owner-b', LONG)).toMatchObject({ owner: 'owner-b' })
      })

      it('refuses a malformed lease request with a TypeError', async () => {
        const { id } = await store.create({ createdAt: CREATED_AT })
        for (const [owner, ttl] of [['', LONG], ['owner-a', 0], ['owner-a', -5], ['owner-a', Number.NaN], ['owner-a', Number.POSITIVE_INFINITY]] as const)
          await expect(store.acquireLease!(id, owner, ttl)).rejects.toBeInstanceOf(TypeError)
      })
    })

    it('writes the current format version', async () => {
      const { id, version } = await store.create({ createdAt: CREATED_AT })
      expect(version).toBe(SESSION_FORMAT_VERSION)
      await store.appendTurns(id, [userTurn('t1', 'x')])
      expect((await store.load(id))?.version).toBe(SESSION_FORMAT_VERSION)
    })
  })
}

function toolResultTurnWithImage(image: string): SessionTurn {
  return {
    id: 'tool-image',
    role: 'user',
    createdAt: CREATED_AT,
    content: [{
      type: 'tool_result',
      callId: 'call_screenshot',
      output: [{ type: 'text', text: 'Screenshot taken' }, { type: 'image', data: image, mediaType: 'image/png' }],
    }],
  }
}
