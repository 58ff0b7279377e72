/**
 * Session logs that are damaged or hostile, through the public API: a line
 * longer than the longest string, a log of gigabytes, records nested a
 * million levels deep or holding millions of turns, odd strings and keys, a
 * FIFO where a log belongs. Every case ends in a typed answer (a load, a
 * `corrupt` record that names its line and can be skipped, or an `io`
 * error saying what to do), never a hang, a crash or an untyped error.
 * Big files are sparse, so they cost disk blocks and memory only for what is
 * really written.
 */

import { execFileSync, spawn } from 'node:child_process'
import { appendFileSync, closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { SessionStoreError } from '../../src/errors'
import { createFileStore, createMemoryStore, createSession, loadSession } from '../../src/session'
import { assertWritableLine } from '../../src/session/stores/jsonl-log'
import { scriptedProvider } from '../../src/testing'
import { userTurn } from './sample-turns'
import { tempDirForFile } from './temp-dir'

const freshDir = tempDirForFile('file-store-hostile')

const MiB = 1024 * 1024
const GiB = 1024 * MiB
/** V8's longest string on 64-bit Node 20 and later: the line cap of the file store. */
const LONGEST_STRING = 536_870_888

async function rejection(promise: Promise<unknown>): Promise<SessionStoreError> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return error as SessionStoreError
}

/** A session `chat` with one sound turn, and the path of its log. */
async function fileSession(options: { maxLogBytes?: number } = {}) {
  const dir = freshDir()
  const store = createFileStore({ dir, ...options })
  const session = await createSession({ id: 'chat', store })
  await session.appendTurns([userTurn('t1', 'hello')])
  return { dir, store, log: join(dir, 'chat.jsonl') }
}

/** Append `length` zero bytes to a file without writing them (a hole), then `tail`. */
function appendHole(path: string, length: number, tail: string): void {
  const fd = openSync(path, 'r+')
  try {
    const { size } = fstatSync(fd)
    ftruncateSync(fd, size + length)
    writeSync(fd, tail, size + length)
  }
  finally {
    closeSync(fd)
  }
}

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`

describe('file store: oversized input', () => {
  it('a write whose line would pass the cap is refused as corrupt, with the problem a load would name, and writes nothing', () => {
    // A record of half a gigabyte of JSON is too heavy for a test run; the check
    // reads only the line's length, so a stand-in of that length drives it.
    const line = { length: LONGEST_STRING + 1 } as Buffer
    const error = (() => {
      try {
        assertWritableLine(line, 'chat')
      }
      catch (failure) {
        return failure
      }
    })()
    expect(error).toBeInstanceOf(SessionStoreError)
    expect((error as SessionStoreError).code).toBe('corrupt')
    expect((error as SessionStoreError).record).toEqual({ problem: `is ${(LONGEST_STRING + 1).toLocaleString('en-US')} bytes long, over the ${LONGEST_STRING.toLocaleString('en-US')} a log line may hold` })
    expect((error as SessionStoreError).message).toContain('nothing was written')
    expect(() => assertWritableLine({ length: LONGEST_STRING } as Buffer, 'chat')).not.toThrow()
  })

  it('a line longer than the longest string: a corrupt line named by number, skipped without being held in memory', async () => {
    const { store, log } = await fileSession({ maxLogBytes: 2 * GiB })
    const length = LONGEST_STRING + 10 * MiB
    appendHole(log, length, `\n${JSON.stringify({ type: 'turns', at: 9, turns: [userTurn('t2', 'after')] })}\n`)

    const error = await rejection(store.load('chat'))
    expect(error.code).toBe('corrupt')
    expect(error.record).toEqual({ line: 3, problem: `is ${length.toLocaleString('en-US')} bytes long, over the ${LONGEST_STRING.toLocaleString('en-US')} a log line may hold` })
    expect(error.message).toContain('"chat", line 3')

    const session = await loadSession('chat', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
    expect(session.skipped).toHaveLength(1)
    // Only the line's first KiB is kept to show what it was; the line itself stays in the log.
    expect(session.skipped[0]).toMatchObject({ kind: 'line', line: 3, raw: '\u0000'.repeat(1024) })
  })

  it('a log over maxLogBytes (default 512 MiB): an io error naming the size, the cap and the option, before reading it', async () => {
    const { store, log } = await fileSession()
    appendHole(log, 600 * MiB, '\n')
    const error = await rejection(loadSession('chat', { store, onCorrupt: 'skip' }))
    expect(error.code).toBe('io')
    expect(error.message).toMatch(/Session log "chat" \(.*chat\.jsonl\) is 629,145,\d{3} bytes, over the 536,870,912 a load reads \(maxLogBytes\)/)
    expect(error.message).toContain('raise maxLogBytes of createFileStore')
  })

  it('a log of several gigabytes is refused the same way, whatever maxLogBytes below it says', async () => {
    const { dir, log } = await fileSession()
    appendHole(log, 5 * GiB, '\n')
    const error = await rejection(createFileStore({ dir, maxLogBytes: 4 * GiB }).load('chat'))
    expect(error.code).toBe('io')
    expect(error.message).toContain('is 5,368,709,')
  })

  it('maxLogBytes must be a positive number', () => {
    expect(() => createFileStore({ dir: freshDir(), maxLogBytes: Number.NaN })).toThrow(TypeError)
    expect(() => createFileStore({ dir: freshDir(), maxLogBytes: 0 })).toThrow(/maxLogBytes must be a positive number/)
  })

  it('lines crossing the pieces a load reads (8 MiB), one longer than a piece, load whole; maxLogBytes counts the whole log', async () => {
    const { dir, store } = await fileSession()
    const sizes = [3, 5, 7, 9, 11].map(megabytes => megabytes * 1_000_000)
    for (const [i, size] of sizes.entries())
      await store.appendTurns('chat', [userTurn(`big${i}`, 'x'.repeat(size))])
    const loaded = await store.load('chat')
    expect(loaded?.turns.map(turn => (turn.content[0] as { text: string }).text.length)).toEqual([5, ...sizes])
    expect((await rejection(createFileStore({ dir, maxLogBytes: 32 * MiB }).load('chat'))).code).toBe('io')
    expect((await createFileStore({ dir, maxLogBytes: 64 * MiB }).load('chat'))?.turns).toHaveLength(6)
  })
})

describe('file store: deep and wide records', () => {
  it('a turn nested a million levels deep: its line is corrupt, skippable, and the session then saves and runs', async () => {
    const { store, log } = await fileSession()
    const line = `{"type":"turns","at":9,"turns":[{"id":"t2","role":"assistant","createdAt":2,"content":[{"type":"tool_call","id":"c","name":"n","input":{"a":${deep(1_000_000)}}}]}]}`
    appendFileSync(log, `${line}\n`)
    await store.appendTurns('chat', [userTurn('t3', 'after')])

    const error = await rejection(loadSession('chat', { store }))
    expect(error).toMatchObject({ code: 'corrupt', record: { line: 3, problem: 'has a turn that is nested more than 1,000 levels deep' } })

    const session = await loadSession('chat', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t1', 't3'])
    expect(session.skipped).toMatchObject([{ kind: 'line', line: 3 }])
    expect(session.skipped[0].raw === line).toBe(true)
    const copy = createMemoryStore()
    await copy.create({ id: 'copy', createdAt: 1 })
    await copy.appendTurns('copy', session.turns)
    const agent = createAgent({ provider: scriptedProvider([{ text: 'still here' }]), session })
    expect((await agent.run({ prompt: 'go on' })).stopReason).toBe('completed')
  })

  it('a record just inside the depth limit loads; one level past it does not', async () => {
    const { store, log } = await fileSession()
    // The turn, its content array, the block, the input object: 4 levels, then the nested arrays.
    const line = (levels: number) => `{"type":"turns","at":9,"turns":[{"id":"d${levels}","role":"assistant","createdAt":2,"content":[{"type":"tool_call","id":"c","name":"n","input":{"a":${deep(levels)}}}]}]}\n`
    appendFileSync(log, line(996))
    expect((await store.load('chat'))?.turns.map(turn => turn.id)).toEqual(['t1', 'd996'])
    appendFileSync(log, line(997))
    expect((await rejection(store.load('chat'))).record).toMatchObject({ line: 4 })
  })

  it('a run nested too deep is a corrupt line; metadata nested too deep is skipped alone, and the session still takes writes', async () => {
    const dir = freshDir()
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'meta.jsonl'), [
      `{"v":1,"type":"session","id":"meta","createdAt":1,"metadata":{"a":${deep(5_000)}},"at":1}`,
      `{"type":"run","at":2,"run":{"id":"r1","status":"running","startedAt":1,"state":${deep(100_000)}}}`,
      `{"type":"turns","at":3,"turns":[${JSON.stringify(userTurn('t1', 'kept'))}]}`,
      '',
    ].join('\n'))
    const store = createFileStore({ dir })
    expect((await rejection(store.load('meta'))).record).toEqual({ line: 1, problem: 'has metadata that is nested more than 1,000 levels deep' })
    const session = await loadSession('meta', { store, onCorrupt: 'skip' })
    expect(session.metadata).toBeUndefined()
    expect(session.runs).toEqual([])
    expect(session.skipped.map(record => [record.kind, record.line, record.problem])).toEqual([
      ['metadata', 1, 'has metadata that is nested more than 1,000 levels deep'],
      ['line', 2, 'has a run that is nested more than 1,000 levels deep'],
    ])
    await session.appendTurns([userTurn('t2', 'written after the skip')])
    expect((await loadSession('meta', { store, onCorrupt: 'skip' })).turns.map(turn => turn.id)).toEqual(['t1', 't2'])
  })

  it('ten million broken turns in one line: the first is named; a skip stops at 10,000 with a typed error', async () => {
    const { store, log } = await fileSession()
    appendFileSync(log, `{"type":"turns","at":9,"turns":[0${',0'.repeat(9_999_999)}]}\n`)
    expect((await rejection(store.load('chat'))).record).toEqual({ line: 3, index: 0, problem: 'is a number, not a turn object' })
    const error = await rejection(store.load('chat', { onCorrupt: 'skip' }))
    expect(error.code).toBe('corrupt')
    expect(error.record).toEqual({ line: 3, index: 10_000, problem: 'is a number, not a turn object' })
    expect(error.message).toContain('more than 10,000 broken records')
  })

  it('two hundred thousand sound turns in one line load, in order (already fine: no call spreads them into arguments)', async () => {
    const { store, log } = await fileSession()
    const turn = (i: number) => `{"id":"w${i}","role":"user","createdAt":0,"content":[]}`
    appendFileSync(log, `{"type":"turns","at":9,"turns":[${Array.from({ length: 200_000 }, (_, i) => turn(i)).join(',')}]}\n`)
    const session = await loadSession('chat', { store })
    expect(session.turns).toHaveLength(200_001)
    expect(session.turns[200_000].id).toBe('w199999')
  })
})

describe('file store: odd strings and keys (already fine)', () => {
  it('lone surrogates, NUL and __proto__ keys come back as written; a raw NUL or invalid UTF-8 in a line is handled', async () => {
    const { store, log } = await fileSession()
    // A computed `__proto__` key is an own property, as JSON.parse makes one.
    const odd = { ...userTurn('t2', 'lone \uD800 and \uDC00, NUL \u0000, end'), ['__proto__' as string]: { polluted: true } }
    await store.appendTurns('chat', [odd])
    appendFileSync(log, `{"type":"turns","at":9,"turns":[{"id":"t3","role":"user","createdAt":2,"content":[{"type":"text","text":"raw \u0000 NUL"}]}]}\n`)
    appendFileSync(log, Buffer.concat([Buffer.from(`{"type":"turns","at":9,"turns":[{"id":"t4","role":"user","createdAt":2,"content":[{"type":"text","text":"bytes `), Buffer.from([0xFF, 0xED, 0xA0, 0x80]), Buffer.from('"}]}]}\n')]))

    expect((await rejection(store.load('chat'))).record).toEqual({ line: 4, problem: 'is not valid JSON' })
    const session = await loadSession('chat', { store, onCorrupt: 'skip' })
    expect(session.turns.map(turn => turn.id)).toEqual(['t1', 't2', 't4'])
    const [, back, bytes] = session.turns
    expect((back.content[0] as { text: string }).text).toBe('lone \uD800 and \uDC00, NUL \u0000, end')
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype)
    expect(Object.keys(back)).toContain('__proto__')
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined()
    expect((bytes.content[0] as { text: string }).text).toBe('bytes \uFFFD\uFFFD\uFFFD\uFFFD')
  })
})

describe.skipIf(process.platform === 'win32')('file store: something other than a file where a log belongs', () => {
  function withFifo(dir: string, id: string): string {
    const path = join(dir, `${id}.jsonl`)
    rmSync(path, { force: true })
    execFileSync('mkfifo', [path])
    expect(existsSync(path)).toBe(true)
    return path
  }

  it('a FIFO named like a log: load, write and create answer io at once instead of waiting for a writer', async () => {
    const { dir, store } = await fileSession()
    withFifo(dir, 'chat')
    const loading = await rejection(loadSession('chat', { store }))
    expect(loading.code).toBe('io')
    expect(loading.message).toContain('is a FIFO, not a regular file')

    // A store that has not read this log's header yet (a write's first look at it).
    const other = createFileStore({ dir })
    expect((await rejection(other.appendTurns('chat', [userTurn('t2', 'x')]))).message).toContain('is a FIFO')
    expect((await rejection(other.create({ id: 'chat', createdAt: 1 }))).message).toContain('is a FIFO')
  })

  it('a directory named like a log: io, not a crash', async () => {
    const dir = freshDir()
    mkdirSync(join(dir, 'folder.jsonl'), { recursive: true })
    const error = await rejection(createFileStore({ dir }).load('folder'))
    expect(error.code).toBe('io')
  })
})

describe.skipIf(process.platform === 'win32')('file store: lease files that are not files', () => {
  it('a FIFO named like a lease file: a write answers io at once instead of blocking the process', async () => {
    for (const suffix of ['.lease', '.lease.last']) {
      const { dir, store } = await fileSession()
      execFileSync('mkfifo', [join(dir, `chat${suffix}`)])
      const session = await loadSession('chat', { store })
      // `readFileSync` on a FIFO without a writer blocked the event loop for ever; this would time out.
      const error = await rejection(session.acquireLease())
      expect(error.code).toBe('io')
      expect(error.message).toContain('is not a regular file')
    }
  })
})

describe('file store: writers racing and hand-edited logs', () => {
  /** Run two racing children (`racing-writer-child.ts`) from the same start time; what each call of each answered. */
  async function raceTwo(dir: string, mode: 'create' | 'append', count: number): Promise<string[][]> {
    const script = fileURLToPath(new URL('./racing-writer-child.ts', import.meta.url))
    // Both children need about a second to start; the race begins after that.
    const startAt = Date.now() + 3_000
    return Promise.all(['A', 'B'].map(who => new Promise<string[]>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, dir, mode, who, String(startAt), String(count)], { stdio: ['ignore', 'pipe', 'inherit'] })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
      })
      child.on('error', reject)
      child.on('close', () => resolve(JSON.parse(output) as string[]))
    })))
  }

  it('two processes creating the same ids at the same moments: exactly one create of each succeeds, and every log loads', async () => {
    // Before, the log was made empty (O_EXCL) and its header written next: the other process could find it
    // headerless, take it for a create that crashed, and write its own header too (7 ids in 150, both "created").
    const dir = freshDir()
    const [first, second] = await raceTwo(dir, 'create', 150)
    const store = createFileStore({ dir })
    for (let i = 0; i < 150; i++) {
      expect([first![i], second![i]].sort()).toEqual(['exists', 'ok'])
      expect((await store.load(`race-${i}`))?.turns).toEqual([])
    }
    // No temporary file is left behind.
    expect(readdirSync(dir).filter(name => !name.endsWith('.jsonl'))).toEqual([])
  }, 60_000)

  it('two processes appending to one session without a lease: acknowledged turns are no longer written over', async () => {
    // Before, each wrote at the end it had found, over the other's lines (414 of 600 turns kept, 10 lines broken).
    const dir = freshDir()
    await createFileStore({ dir }).create({ id: 'shared', createdAt: 1 })
    const [first, second] = await raceTwo(dir, 'append', 300)
    expect([...first!, ...second!].every(outcome => outcome === 'ok')).toBe(true)
    const turns = (await createFileStore({ dir }).load('shared', { onCorrupt: 'skip' }))?.turns ?? []
    // Nothing is written over any more. Writers without a lease can still lose a line now and then: one
    // opening the log cuts what looks like a torn tail, which may be the other's line being written at that
    // instant (documented: take the lease). So the bound is loose, and still far above the 414 of before.
    expect(turns.length).toBeGreaterThanOrEqual(570)
    expect(new Set(turns.map(turn => turn.id)).size).toBe(turns.length)
  }, 60_000)

  it('a log saved with a UTF-8 byte order mark (by an editor) loads', async () => {
    const { store, log } = await fileSession()
    writeFileSync(log, Buffer.concat([Buffer.from([0xEF, 0xBB, 0xBF]), readFileSync(log)]))
    expect((await store.load('chat'))?.turns.map(turn => turn.id)).toEqual(['t1'])
  })

  it('a turn or run with a time JSON cannot hold (NaN, Infinity) is refused as corrupt before it is written', async () => {
    const { store } = await fileSession()
    const session = await loadSession('chat', { store })
    const bad = { ...userTurn('t2', 'x'), createdAt: Number.NaN }
    const error = await rejection(session.appendTurns([userTurn('t3', 'fine'), bad]))
    expect(error.code).toBe('corrupt')
    expect(error.record).toEqual({ index: 1, problem: 'has no numeric createdAt' })
    expect(error.message).toContain('nothing was written')
    const runError = await rejection(session.saveRun({ id: 'r1', status: 'running', startedAt: Number.POSITIVE_INFINITY }))
    expect(runError.record).toEqual({ problem: 'has no numeric startedAt' })
    // A strict load still reads the session: nothing unreadable was stored.
    expect((await loadSession('chat', { store })).turns.map(turn => turn.id)).toEqual(['t1'])
  })
})
