/**
 * SQLite rows that are damaged or hostile, written by a second connection
 * behind the store's back: each is a `corrupt` record named by table and
 * row, which `onCorrupt: 'skip'` leaves out, never an untyped error later.
 * Skipped when `better-sqlite3` (an optional peer dependency) is missing.
 */

import type Database from 'better-sqlite3'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SessionStoreError } from '../../src/errors'
import { createSession, loadSession } from '../../src/session'
import { createSqliteStore } from '../../src/session/sqlite'
import { run, userTurn } from './sample-turns'
import { tempDirForFile } from './temp-dir'

const Driver = (() => {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as typeof Database
  }
  catch {
    return undefined
  }
})()

const freshDir = tempDirForFile('sqlite-hostile')
const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`

async function rejection(promise: Promise<unknown>): Promise<SessionStoreError> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return error as SessionStoreError
}

describe.skipIf(!Driver)('sqlite store: hostile rows', () => {
  async function tampered(edit: (db: Database.Database) => void) {
    const path = join(freshDir(), 'sessions.db')
    const store = createSqliteStore({ path })
    const session = await createSession({ id: 'chat', store, metadata: { title: 'chat' } })
    await session.appendTurns([userTurn('t1', 'one'), userTurn('t2', 'two'), userTurn('t3', 'three')])
    await session.saveRun(run('r1'))
    const db = new Driver!(path)
    try {
      edit(db)
    }
    finally {
      db.close()
    }
    return store
  }

  it('a turn row nested a million levels deep: corrupt with its table and row, skippable', async () => {
    const turn = `{"id":"t2","role":"assistant","createdAt":2,"content":[{"type":"tool_call","id":"c","name":"n","input":{"a":${deep(1_000_000)}}}]}`
    const store = await tampered(db => db.prepare('UPDATE zidane_turns SET turn = ? WHERE seq = 1').run(turn))
    const error = await rejection(loadSession('chat', { store }))
    expect(error).toMatchObject({ code: 'corrupt', record: { table: 'turns', row: 1, problem: 'is nested more than 1,000 levels deep' } })
    expect(error.message).toContain('turns row 1 is nested more than 1,000 levels deep')
    const session = await loadSession('chat', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t1', 't3'])
    expect(session.skipped).toHaveLength(1)
    expect(session.skipped[0]).toMatchObject({ kind: 'turn', table: 'turns', row: 1 })
    expect(session.skipped[0].raw === turn).toBe(true)
    await store.close?.()
  })

  it('a run row and the metadata nested too deep: each corrupt, each skipped alone', async () => {
    const store = await tampered((db) => {
      db.prepare('UPDATE zidane_runs SET run = ?').run(`{"id":"r1","status":"running","startedAt":1,"state":${deep(50_000)}}`)
      db.prepare('UPDATE zidane_sessions SET metadata = ?').run(`{"title":${deep(2_000)}}`)
    })
    expect((await rejection(store.load('chat'))).record).toEqual({ table: 'runs', row: 0, problem: 'is nested more than 1,000 levels deep' })
    const session = await loadSession('chat', { store, onCorrupt: 'skip' })
    expect(session.turns).toHaveLength(3)
    expect(session.runs).toEqual([])
    expect(session.metadata).toBeUndefined()
    expect(session.skipped.map(record => [record.kind, record.table, record.row])).toEqual([['run', 'runs', 0], ['metadata', 'sessions', undefined]])
    await store.close?.()
  })

  it('a turn row that is not JSON, or holds a NUL or a lone surrogate (already fine)', async () => {
    const store = await tampered((db) => {
      db.prepare('UPDATE zidane_turns SET turn = ? WHERE seq = 0').run('{"id":"t1","role":"user","createdAt":1,"content":[{"type":"text","text":"ab')
      db.prepare('UPDATE zidane_turns SET turn = ? WHERE seq = 2').run(JSON.stringify(userTurn('t3', 'NUL \u0000 lone \uD800')))
    })
    expect((await rejection(store.load('chat'))).record).toEqual({ table: 'turns', row: 0, problem: 'is not valid JSON' })
    const session = await loadSession('chat', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t2', 't3'])
    expect((session.turns[1].content[0] as { text: string }).text).toBe('NUL \u0000 lone \uD800')
    await store.close?.()
  })
})
