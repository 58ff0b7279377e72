import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { SessionStoreError } from '../../src/errors'
import { createSqliteStore } from '../../src/session/sqlite'
import { assistantTurn, run, toolResultTurn, userTurn } from './sample-turns'
import { describeStoreConformance } from './store-conformance'
import { tempDirForFile } from './temp-dir'

const freshDir = tempDirForFile('sqlite-store')
const freshPath = () => join(freshDir(), 'sessions.db')

/** A SQLite store whose rows the broken-record tests can overwrite through a second connection. */
function tamperableSqliteStore() {
  const path = freshPath()
  const store = createSqliteStore({ path })
  const overwrite = (sql: string, ...params: unknown[]) => {
    const db = new Database(path)
    try {
      db.prepare(sql).run(...params)
    }
    finally {
      db.close()
    }
  }
  return {
    store,
    tamper: {
      garbage: async (id: string, text: string) => {
        await store.appendTurns(id, [userTurn('placeholder', 'replaced')])
        overwrite('UPDATE zidane_turns SET turn = ? WHERE session_id = ? AND seq = (SELECT MAX(seq) FROM zidane_turns WHERE session_id = ?)', text, id, id)
      },
      run: async (id: string, json: string) => {
        await store.saveRun(id, run('placeholder'))
        overwrite('UPDATE zidane_runs SET run = ? WHERE session_id = ? AND run_id = ?', json, id, 'placeholder')
      },
    },
  }
}

describeStoreConformance('sqlite', () => tamperableSqliteStore())
describeStoreConformance('sqlite (in memory, fsync)', () => createSqliteStore({ path: ':memory:', durability: 'fsync' }))

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return (error as SessionStoreError).code
}

describe('sqlite store', () => {
  it('keeps everything across close and reopen, and goes on appending after it', async () => {
    const path = freshPath()
    const first = createSqliteStore({ path })
    await first.create({ id: 'kept', createdAt: 1000, metadata: { title: 'persisted' } })
    await first.appendTurns('kept', [userTurn('t1', 'fix it'), assistantTurn('t2')])
    await first.saveRun('kept', run('run_1'))
    const before = await first.load('kept')
    await first.close?.()

    const second = createSqliteStore({ path })
    expect(await second.load('kept')).toEqual(before)
    await second.appendTurns('kept', [toolResultTurn('t3', 'call_t2')])
    await second.saveRun('kept', run('run_1', { status: 'completed', endedAt: 2000, stopReason: 'completed' }))
    const after = (await second.load('kept'))!
    expect(after.turns.map(turn => turn.id)).toEqual(['t1', 't2', 't3'])
    expect(after.runs).toEqual([run('run_1', { status: 'completed', endedAt: 2000, stopReason: 'completed' })])
    expect(await second.list()).toEqual(['kept'])
    await second.close?.()
  })

  it('runs the database in WAL mode', async () => {
    const path = freshPath()
    const store = createSqliteStore({ path })
    await store.create({ id: 'wal', createdAt: 1 })
    const db = new Database(path, { readonly: true })
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    db.close()
    await store.close?.()
  })

  it('stores one row per turn, numbered in append order', async () => {
    const path = freshPath()
    const store = createSqliteStore({ path })
    await store.create({ id: 'rows', createdAt: 1 })
    await store.appendTurns('rows', [userTurn('a', 'a'), userTurn('b', 'b')])
    await store.appendTurns('rows', [userTurn('c', 'c')])
    const db = new Database(path, { readonly: true })
    const rows = db.prepare('SELECT seq, turn FROM zidane_turns WHERE session_id = ? ORDER BY seq').all('rows') as { seq: number, turn: string }[]
    expect(rows.map(row => [row.seq, JSON.parse(row.turn).id])).toEqual([[0, 'a'], [1, 'b'], [2, 'c']])
    db.close()
    await store.close?.()
  })

  it('sees what another connection to the same file wrote', async () => {
    const path = freshPath()
    const writer = createSqliteStore({ path })
    const reader = createSqliteStore({ path })
    await writer.create({ id: 'shared', createdAt: 1 })
    await writer.appendTurns('shared', [userTurn('t1', 'hello')])
    expect((await reader.load('shared'))?.turns.map(turn => turn.id)).toEqual(['t1'])
    await reader.appendTurns('shared', [userTurn('t2', 'back')])
    expect((await writer.load('shared'))?.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
    await writer.close?.()
    await reader.close?.()
  })

  it('refuses a session written by a newer format and reports a damaged row as corrupt', async () => {
    const path = freshPath()
    const store = createSqliteStore({ path })
    await store.create({ id: 'future', createdAt: 1 })
    await store.create({ id: 'damaged', createdAt: 1 })
    await store.appendTurns('damaged', [userTurn('t1', 'x')])
    const db = new Database(path)
    db.prepare('UPDATE zidane_sessions SET version = 2 WHERE id = ?').run('future')
    db.prepare('UPDATE zidane_turns SET turn = ? WHERE session_id = ?').run('{"id":', 'damaged')
    db.close()
    expect(await codeOf(store.load('future'))).toBe('unsupported_version')
    expect(await codeOf(store.load('damaged'))).toBe('corrupt')
    await store.close?.()
  })

  it('names a broken row by table and seq, and skips broken metadata keeping the turns', async () => {
    const path = freshPath()
    const store = createSqliteStore({ path })
    await store.create({ id: 'meta', createdAt: 1, metadata: { title: 'kept?' } })
    await store.appendTurns('meta', [userTurn('t0', 'zero'), userTurn('t1', 'one'), userTurn('t2', 'two')])
    const db = new Database(path)
    db.prepare('UPDATE zidane_sessions SET metadata = ? WHERE id = ?').run('null', 'meta')
    db.prepare('UPDATE zidane_turns SET turn = ? WHERE session_id = ? AND seq = 1').run('{"id":"t1","role":"user","createdAt":1}', 'meta')
    db.close()
    const error = await store.load('meta').then(() => undefined, (failure: unknown) => failure as SessionStoreError)
    expect(error).toMatchObject({ code: 'corrupt', sessionId: 'meta', record: { table: 'turns', row: 1, problem: 'has no content' } })
    expect(error?.message).toContain('Session "meta" in SQLite, turns row 1 has no content')
    const loaded = (await store.load('meta', { onCorrupt: 'skip' }))!
    expect(loaded.turns.map(turn => turn.id)).toEqual(['t0', 't2'])
    expect(loaded.metadata).toBeUndefined()
    expect(loaded.skipped?.map(record => [record.kind, record.table, record.row, record.raw])).toEqual([
      ['turn', 'turns', 1, '{"id":"t1","role":"user","createdAt":1}'],
      ['metadata', 'sessions', undefined, 'null'],
    ])
    await store.close?.()
  })

  it('reports a database it cannot open, and use after close, as io errors', async () => {
    const dir = freshDir()
    mkdirSync(join(dir, 'a-directory'), { recursive: true })
    expect(() => createSqliteStore({ path: join(dir, 'a-directory') })).toThrow(SessionStoreError)
    const store = createSqliteStore({ path: join(dir, 'ok.db') })
    await store.close?.()
    expect(await codeOf(store.load('any'))).toBe('io')
  })

  it('is the only session entry that loads better-sqlite3', async () => {
    const bundle = async (contents: string) => (await build({
      stdin: { contents, resolveDir: fileURLToPath(new URL('../..', import.meta.url)), loader: 'ts' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      packages: 'external',
      logLevel: 'silent',
    })).outputFiles[0].text
    expect(await bundle(`export * from './src/session/stores'`)).not.toContain('better-sqlite3')
    expect(await bundle(`export * from './src/session/sqlite'`)).toContain('better-sqlite3')
  })
})
