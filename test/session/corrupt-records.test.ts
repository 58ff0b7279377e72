/**
 * Broken session records through the public API: `loadSession` refuses them
 * with a typed error naming the record, and `onCorrupt: 'skip'` opens the
 * session with every sound turn, after which runs go on normally and the
 * wire stays paired.
 */

import type { SessionTurn } from '../../src/core/content'
import type { SessionData, SessionStore } from '../../src/session/types'
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { SessionStoreError } from '../../src/errors'
import { createFileStore, createSession, loadSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { assistantTurn, toolResultTurn, userTurn } from './sample-turns'
import { tempDirForFile } from './temp-dir'

const freshDir = tempDirForFile('corrupt-records')

async function rejection(promise: Promise<unknown>): Promise<SessionStoreError> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return error as SessionStoreError
}

async function fileSession(turns: SessionTurn[]) {
  const dir = freshDir()
  const store = createFileStore({ dir })
  const session = await createSession({ id: 'chat', store })
  await session.appendTurns(turns)
  return { store, log: join(dir, 'chat.jsonl') }
}

describe('broken session records', () => {
  it('a garbage line appended to a file log: a typed error naming it, and a skip that keeps the session usable', async () => {
    const { store, log } = await fileSession([userTurn('t1', 'hello')])
    appendFileSync(log, 'garbage that an editor left behind\n')

    const error = await rejection(loadSession('chat', { store }))
    expect(error).toMatchObject({ code: 'corrupt', sessionId: 'chat', record: { line: 3, problem: 'is not valid JSON' } })
    expect(error.message).toContain('"chat", line 3')

    const session = await loadSession('chat', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t1'])
    expect(session.skipped).toEqual([{ kind: 'line', line: 3, problem: 'is not valid JSON', raw: 'garbage that an editor left behind' }])

    const agent = createAgent({ provider: scriptedProvider([{ text: 'hi again' }]), session })
    expect((await agent.run({ prompt: 'still there?' })).stopReason).toBe('completed')
    const reloaded = await loadSession('chat', { store, onCorrupt: 'skip' })
    expect(reloaded.turns.map(turn => turn.role)).toEqual(['user', 'user', 'assistant'])
    expect(reloaded.skipped).toHaveLength(1)
  })

  it('a torn line in the middle of a log (not its tail) costs only that line', async () => {
    const { store, log } = await fileSession([userTurn('t1', 'one')])
    appendFileSync(log, '{"type":"turns","at":5,"turns":[{"id":"torn","role":"us\n')
    await store.appendTurns('chat', [userTurn('t2', 'two')])

    expect((await rejection(store.load('chat'))).record).toEqual({ line: 3, problem: 'is not valid JSON' })
    const loaded = (await store.load('chat', { onCorrupt: 'skip' }))!
    expect(loaded.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
    expect(loaded.skipped?.[0]).toMatchObject({ kind: 'line', line: 3 })
  })

  it('a null turn and a turn without content in one line: each named by line and position, the sound turn beside them kept', async () => {
    const { store, log } = await fileSession([userTurn('t1', 'one')])
    appendFileSync(log, `${JSON.stringify({ type: 'turns', at: 9, turns: [null, userTurn('t2', 'two'), { id: 't3', role: 'user', createdAt: 1 }] })}\n`)

    const error = await rejection(store.load('chat'))
    expect(error.record).toEqual({ line: 3, index: 0, problem: 'is null, not a turn object' })
    const loaded = (await store.load('chat', { onCorrupt: 'skip' }))!
    expect(loaded.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
    expect(loaded.skipped?.map(record => [record.kind, record.line, record.index, record.problem])).toEqual([
      ['turn', 3, 0, 'is null, not a turn object'],
      ['turn', 3, 2, 'has no content'],
    ])
  })

  it('keeps the wire paired when the skipped record held the tool call', async () => {
    const { store, log } = await fileSession([userTurn('t1', 'read the file')])
    const call = assistantTurn('t2')
    // The assistant turn holding call_t2 is damaged; its result, in the next line, survives.
    appendFileSync(log, `${JSON.stringify({ type: 'turns', at: 9, turns: [{ ...call, role: 'robot' }] })}\n`)
    await store.appendTurns('chat', [toolResultTurn('t3', 'call_t2'), { ...userTurn('t4', 'and then?'), role: 'user' }])

    const session = await loadSession('chat', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t1', 't3', 't4'])
    const repairs: string[] = []
    const provider = scriptedProvider([{ text: 'done' }])
    const agent = createAgent({ provider, session, hooks: { 'pairing:repair': ({ repair }) => void repairs.push(`${repair.kind}:${repair.callId}`) } })
    expect((await agent.run({ prompt: 'continue' })).stopReason).toBe('completed')
    expect(repairs).toEqual(['orphan-tool-result:call_t2'])
    expect(JSON.stringify(provider.requests[0].messages)).not.toContain('call_t2')
  })

  it('checks what a custom store returns, too', async () => {
    const data: SessionData = {
      version: 1,
      id: 'custom',
      createdAt: 1,
      updatedAt: 1,
      turns: [userTurn('t1', 'one'), null as unknown as SessionTurn, { id: 't3', role: 'user', createdAt: 1, content: [{ type: 'tool_result', callId: 'c' }] } as unknown as SessionTurn],
      runs: [{ id: 'run_1', status: 'running', startedAt: 1 }, { id: 'run_2' } as never],
    }
    const store: SessionStore = {
      create: async () => data,
      // Its own object, not a copy: a skip must leave it as it is.
      load: async () => data,
      appendTurns: async () => {},
      saveRun: async () => {},
      delete: async () => {},
      list: async () => ['custom'],
    }
    const error = await rejection(loadSession('custom', { store }))
    expect(error).toMatchObject({ code: 'corrupt', sessionId: 'custom', record: { index: 1, problem: 'is null, not a turn object' } })
    const session = await loadSession('custom', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t1'])
    expect(session.runs.map(run => run.id)).toEqual(['run_1'])
    expect(data.turns).toHaveLength(3)
    expect(data.runs).toHaveLength(2)
    expect(data.skipped).toBeUndefined()
    expect(session.skipped.map(record => [record.kind, record.index, record.problem])).toEqual([
      ['turn', 1, 'is null, not a turn object'],
      ['turn', 2, 'has content block 0 that (tool_result) has an output that is undefined'],
      ['run', 1, 'has no string status'],
    ])
  })
})
