import { spawn } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SessionLeaseError, SessionStoreError } from '../../src/errors'
import { createFileStore } from '../../src/session/stores'
import { SYNC_APPEND_MAX_BYTES } from '../../src/session/stores/log-file'
import { assistantTurn, run, toolResultTurn, userTurn } from './sample-turns'
import { describeStoreConformance } from './store-conformance'
import { tempDirForFile } from './temp-dir'

const freshDir = tempDirForFile('file-store')

/** A file store whose logs the broken-record tests can write to directly. */
function tamperableFileStore(options: { durability?: 'fsync' } = {}) {
  const dir = freshDir()
  const log = (id: string) => join(dir, `${id}.jsonl`)
  return {
    store: createFileStore({ dir, ...options }),
    tamper: {
      garbage: async (id: string, text: string) => appendFileSync(log(id), `${text}\n`),
      run: async (id: string, json: string) => appendFileSync(log(id), `{"type":"run","at":1,"run":${json}}\n`),
    },
  }
}

describeStoreConformance('file', () => tamperableFileStore())
describeStoreConformance('file (fsync)', () => tamperableFileStore({ durability: 'fsync' }))

async function storeWithSession(id = 's1') {
  const dir = freshDir()
  const store = createFileStore({ dir })
  await store.create({ id, createdAt: 1000 })
  return { dir, store, path: join(dir, `${id}.jsonl`) }
}

function lines(path: string): string[] {
  const text = readFileSync(path, 'utf8')
  expect(text.endsWith('\n')).toBe(true)
  return text.slice(0, -1).split('\n')
}

/** The files this process has open (Linux). */
/**
 * Whether this process holds `path` open. Compared by inode: a log is created
 * under a temporary name and linked into place, so its descriptor is named
 * after the temporary file.
 */
function isOpen(path: string): boolean {
  if (!existsSync(path))
    return false
  const inode = statSync(path).ino
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return statSync(join('/proc/self/fd', fd)).ino === inode
    }
    catch {
      return false
    }
  })
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionStoreError)
  return (error as SessionStoreError).code
}

describe('file store log', () => {
  it('writes a header line, then one line per append and per saved run', async () => {
    const dir = freshDir()
    const store = createFileStore({ dir })
    await store.create({ id: 'log', createdAt: 1000, metadata: { title: 'demo' } })
    await store.appendTurns('log', [userTurn('t1', 'hi'), assistantTurn('t2')])
    await store.saveRun('log', run('run_1'))
    const records = lines(join(dir, 'log.jsonl')).map(line => JSON.parse(line))
    expect(records.map(record => record.type)).toEqual(['session', 'turns', 'run'])
    expect(records[0]).toMatchObject({ v: 1, type: 'session', id: 'log', createdAt: 1000, metadata: { title: 'demo' } })
    expect(records[1].turns.map((turn: { id: string }) => turn.id)).toEqual(['t1', 't2'])
    expect((await store.load('log'))?.updatedAt).toBe(records[2].at)
  })

  it('only appends: earlier bytes stay as they were, the file grows by one line', async () => {
    const { store, path } = await storeWithSession()
    for (let i = 0; i < 20; i++)
      await store.appendTurns('s1', [userTurn(`t${i}`, `turn ${i}`)])
    const before = readFileSync(path)
    await store.appendTurns('s1', [toolResultTurn('last', 'call_1')])
    const after = readFileSync(path)
    expect(after.subarray(0, before.length).equals(before)).toBe(true)
    const added = after.subarray(before.length).toString('utf8')
    expect(added.endsWith('\n')).toBe(true)
    expect(added.indexOf('\n')).toBe(added.length - 1)
  })

  it('recovers from a torn last line: ignored on load, cut by the next append', async () => {
    const { store, path } = await storeWithSession()
    await store.appendTurns('s1', [userTurn('t1', 'one'), userTurn('t2', 'two')])
    appendFileSync(path, '{"type":"turns","at":5,"turns":[{"id":"torn","role":"us')
    expect((await store.load('s1'))?.turns.map(turn => turn.id)).toEqual(['t1', 't2'])

    await store.appendTurns('s1', [userTurn('t3', 'three')])
    expect((await store.load('s1'))?.turns.map(turn => turn.id)).toEqual(['t1', 't2', 't3'])
    const records = lines(path).map(line => JSON.parse(line))
    expect(records.map(record => record.type)).toEqual(['session', 'turns', 'turns'])
  })

  it.runIf(existsSync('/proc/self/fd'))('keeps a log it created open for the run that follows, and closes it when the run ends', async () => {
    const { store, path } = await storeWithSession('fresh')
    // The create left the log open: the run's first record is one write, with no open, header read or end search.
    expect(isOpen(path)).toBe(true)
    await store.saveRun('fresh', run('run_1', { status: 'running' }))
    await store.appendTurns('fresh', [userTurn('t1', 'hi')])
    await store.saveRun('fresh', run('run_1', { status: 'completed' }))
    expect(isOpen(path)).toBe(false)
    expect(lines(path).map(line => (JSON.parse(line) as { type: string }).type)).toEqual(['session', 'run', 'turns', 'run'])
  })

  it('takes the full path when another writer appended to a log it created and kept open', async () => {
    const { store, path } = await storeWithSession('shared')
    appendFileSync(path, `${JSON.stringify({ type: 'turns', at: 5, turns: [userTurn('other', 'x')] })}\n`)
    await store.appendTurns('shared', [userTurn('mine', 'y')])
    expect((await store.load('shared'))?.turns.map(turn => turn.id)).toEqual(['other', 'mine'])
  })

  it('treats a complete JSON line without its newline as torn (the write was never acknowledged)', async () => {
    const { store, path } = await storeWithSession()
    appendFileSync(path, JSON.stringify({ type: 'turns', at: 5, turns: [userTurn('unacked', 'x')] }))
    expect((await store.load('s1'))?.turns).toEqual([])
    await store.saveRun('s1', run('run_1'))
    expect(await store.load('s1')).toMatchObject({ turns: [], runs: [run('run_1')] })
    expect(lines(path)).toHaveLength(2)
  })

  it('cuts a torn tail longer than one read chunk', async () => {
    const { store, path } = await storeWithSession()
    await store.appendTurns('s1', [userTurn('t1', 'one')])
    appendFileSync(path, `{"type":"turns","turns":[{"text":"${'y'.repeat(300_000)}`)
    await store.appendTurns('s1', [userTurn('t2', 'two')])
    expect((await store.load('s1'))?.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
    expect(statSync(path).size).toBeLessThan(10_000)
  })

  it('treats a log whose header never completed as a create that did not happen', async () => {
    const dir = freshDir()
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'half.jsonl'), '{"v":1,"type":"session","id":"ha')
    const store = createFileStore({ dir })
    expect(await store.load('half')).toBeUndefined()
    expect(await codeOf(store.appendTurns('half', [userTurn('t1', 'x')]))).toBe('not_found')
    await store.create({ id: 'half', createdAt: 7 })
    expect(await store.load('half')).toMatchObject({ id: 'half', createdAt: 7, turns: [] })
  })

  it('rejects a complete line that is not a valid record as corrupt', async () => {
    const { store, path } = await storeWithSession()
    await store.appendTurns('s1', [userTurn('t1', 'one')])
    appendFileSync(path, 'not json\n')
    expect(await codeOf(store.load('s1'))).toBe('corrupt')
    writeFileSync(path, `${lines(path)[0]}\n{"type":"mystery","at":1}\n`)
    expect(await codeOf(store.load('s1'))).toBe('corrupt')
  })

  it('rejects a header naming another session as corrupt', async () => {
    const { store, path } = await storeWithSession()
    writeFileSync(path, `${JSON.stringify({ v: 1, type: 'session', id: 'other', createdAt: 1, at: 1 })}\n`)
    expect(await codeOf(store.load('s1'))).toBe('corrupt')
  })

  it('refuses to read or extend a log written by a newer format', async () => {
    const dir = freshDir()
    mkdirSync(dir, { recursive: true })
    const path = join(dir, 'future.jsonl')
    const text = `${JSON.stringify({ v: 2, type: 'session', id: 'future', created: '2031-01-01' })}\n{"type":"events","events":[]}\n`
    writeFileSync(path, text)
    const store = createFileStore({ dir })
    expect(await codeOf(store.load('future'))).toBe('unsupported_version')
    expect(await codeOf(store.appendTurns('future', [userTurn('t1', 'x')]))).toBe('unsupported_version')
    expect(readFileSync(path, 'utf8')).toBe(text)
  })

  it('never touches a path outside its directory for an unsafe id', async () => {
    const dir = freshDir()
    const store = createFileStore({ dir })
    await store.create({ id: 'inside', createdAt: 1 })
    for (const id of ['../outside', '..', 'a/../../outside'])
      expect(await codeOf(store.create({ id, createdAt: 1 }))).toBe('invalid_id')
    expect(existsSync(join(dirname(dir), 'outside.jsonl'))).toBe(false)
    expect(readdirSync(dir)).toEqual(['inside.jsonl'])
  })

  it('lists only session logs, and nothing for a directory not yet created', async () => {
    expect(await createFileStore({ dir: freshDir() }).list()).toEqual([])
    const { dir, store } = await storeWithSession('real')
    writeFileSync(join(dir, 'notes.txt'), 'x')
    writeFileSync(join(dir, '.hidden.jsonl'), 'x')
    mkdirSync(join(dir, 'nested'))
    expect(await store.list()).toEqual(['real'])
  })

  it('keeps sessions across store instances', async () => {
    const { dir, store } = await storeWithSession('kept')
    await store.appendTurns('kept', [userTurn('t1', 'one')])
    const reopened = createFileStore({ dir })
    await reopened.appendTurns('kept', [userTurn('t2', 'two')])
    expect((await createFileStore({ dir }).load('kept'))?.turns.map(turn => turn.id)).toEqual(['t1', 't2'])
  })

  it('serializes appends from two store instances on the same directory', async () => {
    const { dir, store } = await storeWithSession('shared')
    const other = createFileStore({ dir })
    const writes = Array.from({ length: 30 }, (_, b) =>
      (b % 2 === 0 ? store : other).appendTurns('shared', [userTurn(`b${b}-0`, 'z'.repeat(20_000)), userTurn(`b${b}-1`, 'z')]))
    await Promise.all(writes)
    const ids = (await store.load('shared'))!.turns.map(turn => turn.id)
    expect(ids).toHaveLength(60)
    for (let at = 0; at < ids.length; at += 2)
      expect(ids[at + 1]).toBe(ids[at].replace(/-0$/, '-1'))
  })

  it('stays loadable and appendable after the writing process is killed mid-append', async () => {
    const { dir, store } = await storeWithSession('killed')
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./append-child.ts', import.meta.url)), dir, 'killed'], { stdio: ['ignore', 'pipe', 'inherit'] })
    // Kill it once it has appended a few batches, while it is busy writing the next.
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject)
      child.once('exit', () => resolve())
      let output = ''
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes('appended 3'))
          child.kill('SIGKILL')
      })
    })
    const ids = (await store.load('killed'))!.turns.map(turn => turn.id)
    expect(ids.length % 4).toBe(0)
    expect(ids.length).toBeGreaterThanOrEqual(16)
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => `b${Math.floor(i / 4)}-t${i % 4}`))
    await store.appendTurns('killed', [userTurn('after', 'survived')])
    expect((await store.load('killed'))!.turns.at(-1)?.id).toBe('after')
    expect(readFileSync(join(dir, 'killed.jsonl'), 'utf8').endsWith('\n')).toBe(true)
  })

  it('keeps appending whole lines while a run records, with another store writing to the same log', async () => {
    const { dir, store, path } = await storeWithSession()
    const other = createFileStore({ dir })
    await store.saveRun('s1', run('run_1'))
    for (let i = 0; i < 5; i++) {
      await store.appendTurns('s1', [userTurn(`a${i}`, 'from the run')])
      await other.appendTurns('s1', [userTurn(`b${i}`, 'from another store')])
    }
    await store.saveRun('s1', run('run_1', { status: 'completed', endedAt: 1_764_460_900_000 }))
    const loaded = await store.load('s1')
    expect(loaded?.turns.map(turn => turn.id)).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4', 'b4'])
    expect(loaded?.runs).toEqual([run('run_1', { status: 'completed', endedAt: 1_764_460_900_000 })])
    expect(lines(path)).toHaveLength(13)
  })

  it('appends whole lines both below and above the size it writes synchronously, in order', async () => {
    const { store, path } = await storeWithSession()
    await store.saveRun('s1', run('run_1'))
    const big = 'x'.repeat(SYNC_APPEND_MAX_BYTES + 1)
    const texts = ['small one', big, 'small two', `${big}é`, 'small three']
    // Not awaited one by one: the synchronous and asynchronous writes must still land in call order.
    await Promise.all(texts.map((text, i) => store.appendTurns('s1', [userTurn(`t${i}`, text)])))
    await store.saveRun('s1', run('run_1', { status: 'completed' }))
    const loaded = await store.load('s1')
    expect(loaded?.turns.map(turn => turn.content)).toEqual(texts.map(text => [{ type: 'text', text }]))
    expect(lines(path).map(line => JSON.parse(line).type)).toEqual(['session', 'run', 'turns', 'turns', 'turns', 'turns', 'turns', 'run'])
  })

  it('cuts a torn tail again once the runs recording into a log have ended', async () => {
    const { store, path } = await storeWithSession()
    await store.saveRun('s1', run('outer'))
    await store.saveRun('s1', run('inner'))
    await store.appendTurns('s1', [userTurn('t1', 'one')])
    await store.saveRun('s1', run('inner', { status: 'completed' }))
    await store.appendTurns('s1', [userTurn('t2', 'two')])
    await store.saveRun('s1', run('outer', { status: 'completed' }))
    appendFileSync(path, '{"type":"turns","at":5,"turns":[{"id":"torn"')
    await store.appendTurns('s1', [userTurn('t3', 'three')])
    expect((await store.load('s1'))?.turns.map(turn => turn.id)).toEqual(['t1', 't2', 't3'])
    expect(lines(path).map(line => JSON.parse(line).type)).toEqual(['session', 'run', 'run', 'turns', 'run', 'turns', 'run', 'turns'])
  })

  it('reports a session deleted while a run records into it as not found, and appends again after close()', async () => {
    const { store } = await storeWithSession()
    await store.saveRun('s1', run('run_1'))
    await store.appendTurns('s1', [userTurn('t1', 'one')])
    await store.delete('s1')
    expect(await codeOf(store.appendTurns('s1', [userTurn('t2', 'two')]))).toBe('not_found')

    await store.create({ id: 's2', createdAt: 1000 })
    await store.saveRun('s2', run('run_2'))
    await store.close?.()
    await store.appendTurns('s2', [userTurn('t1', 'one')])
    expect((await store.load('s2'))?.turns.map(turn => turn.id)).toEqual(['t1'])
  })
})

/** The pid of a process that has exited (reused only after the pid space wraps). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''])
  await new Promise(resolve => child.on('exit', resolve))
  return child.pid!
}

describe('file store lease', () => {
  it('hands the lease over at once when its holder\'s process is dead on this host, and waits otherwise', async () => {
    const dir = freshDir()
    const store = createFileStore({ dir })
    const gone = await deadPid()
    for (const id of ['dead-here', 'dead-elsewhere', 'alive-here'])
      await store.create({ id, createdAt: 1000 })
    await store.acquireLease!('dead-here', 'ghost', 60_000, { pid: gone, hostname: hostname() })
    await store.acquireLease!('dead-elsewhere', 'ghost', 60_000, { pid: gone, hostname: 'another-host' })
    await store.acquireLease!('alive-here', 'ghost', 60_000, { pid: process.ppid, hostname: hostname() })

    expect(await store.acquireLease!('dead-here', 'next', 60_000)).toMatchObject({ owner: 'next', previousOwner: 'ghost', pid: process.pid })
    for (const id of ['dead-elsewhere', 'alive-here']) {
      const refused = await store.acquireLease!(id, 'next', 60_000).then(() => undefined, (error: unknown) => error)
      expect(refused).toBeInstanceOf(SessionLeaseError)
      expect(refused).toMatchObject({ reason: 'held', holder: { owner: 'ghost' } })
    }
    // An unleased write waits for a live holder too, but not for a dead one.
    await expect(store.appendTurns('alive-here', [userTurn('t1', 'x')])).rejects.toBeInstanceOf(SessionLeaseError)
  })

  it('keeps the lease as one JSON record beside the log, and moves it aside whole on release for the next owner to read', async () => {
    const dir = freshDir()
    const store = createFileStore({ dir })
    await store.create({ id: 's1', createdAt: 1000 })
    const lease = await store.acquireLease!('s1', 'owner-a', 60_000)
    await store.renewLease!('s1', 'owner-a', 60_000)
    expect(readdirSync(dir).sort()).toEqual(['s1.jsonl', 's1.lease'])
    await store.releaseLease!('s1', 'owner-a')
    // Released: no record, and a note naming the last owner, with no temporary file left.
    expect(readdirSync(dir).sort()).toEqual(['s1.jsonl', 's1.lease.last'])
    expect(JSON.parse(readFileSync(join(dir, 's1.lease.last'), 'utf8'))).toMatchObject({ owner: 'owner-a', pid: process.pid, hostname: hostname() })
    expect(lease.expiresAt).toBeGreaterThan(0)
    // The next owner learns who wrote last, and the note goes.
    expect(await store.acquireLease!('s1', 'owner-b', 60_000)).toMatchObject({ owner: 'owner-b', previousOwner: 'owner-a' })
    expect(readdirSync(dir).sort()).toEqual(['s1.jsonl', 's1.lease'])
    expect(JSON.parse(readFileSync(join(dir, 's1.lease'), 'utf8'))).toEqual({ owner: 'owner-b', expiresAt: expect.any(Number), pid: process.pid, hostname: hostname() })
    await store.releaseLease!('s1', 'owner-b')
    expect((await store.acquireLease!('s1', 'owner-b', 60_000)).previousOwner).toBeUndefined()
  })

  it('takes a released session without the lock: the release left no record to change', async () => {
    const dir = freshDir()
    const store = createFileStore({ dir })
    await store.create({ id: 's1', createdAt: 1000 })
    await store.acquireLease!('s1', 'owner-a', 60_000)
    await store.releaseLease!('s1', 'owner-a')
    // A fresh lock held by a live process would make any change under the lock wait for up to 15 s.
    const lock = join(dir, 's1.lease.lock')
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, hostname: hostname() }))
    const started = Date.now()
    expect(await createFileStore({ dir }).acquireLease!('s1', 'owner-b', 60_000)).toMatchObject({ owner: 'owner-b', previousOwner: 'owner-a' })
    expect(Date.now() - started).toBeLessThan(1000)
    expect(existsSync(lock)).toBe(true)
  })

  it('refuses an acquire whose last owner it cannot read, and leaves no record behind', async () => {
    const dir = freshDir()
    const store = createFileStore({ dir })
    await store.create({ id: 's1', createdAt: 1000 })
    mkdirSync(join(dir, 's1.lease.last'))
    await expect(store.acquireLease!('s1', 'owner-a', 60_000)).rejects.toMatchObject({ name: 'SessionStoreError', code: 'io' })
    expect(existsSync(join(dir, 's1.lease'))).toBe(false)
    // A note that is not a record names nobody.
    rmSync(join(dir, 's1.lease.last'), { recursive: true })
    writeFileSync(join(dir, 's1.lease.last'), '{"owner":')
    expect((await store.acquireLease!('s1', 'owner-a', 60_000)).previousOwner).toBeUndefined()
  })

  it('replaces a stale note left by a holder that crashed between taking the lease and removing the note', async () => {
    const dir = freshDir()
    const store = createFileStore({ dir })
    await store.create({ id: 's1', createdAt: 1000 })
    await store.acquireLease!('s1', 'owner-a', 60_000)
    await store.releaseLease!('s1', 'owner-a')
    await store.acquireLease!('s1', 'owner-b', 60_000)
    // As if owner-b had died right after its link: owner-a's note is still there beside owner-b's record.
    writeFileSync(join(dir, 's1.lease.last'), JSON.stringify({ owner: 'owner-a', expiresAt: 1 }))
    await store.releaseLease!('s1', 'owner-b')
    expect(await store.acquireLease!('s1', 'owner-a', 60_000)).toMatchObject({ owner: 'owner-a', previousOwner: 'owner-b' })
  })

  it('breaks a lease lock left by a process that died inside it, or one that is too old', async () => {
    const dir = freshDir()
    const store = createFileStore({ dir })
    await store.create({ id: 's1', createdAt: 1000 })
    // A record exists, left by a dead holder: taking it over is a change under the lock.
    await store.acquireLease!('s1', 'owner-0', 60_000, { pid: await deadPid(), hostname: hostname() })
    const lock = join(dir, 's1.lease.lock')
    writeFileSync(lock, JSON.stringify({ pid: await deadPid(), hostname: hostname() }))
    expect(await store.acquireLease!('s1', 'owner-a', 60_000)).toMatchObject({ owner: 'owner-a', previousOwner: 'owner-0' })
    expect(existsSync(lock)).toBe(false)

    writeFileSync(lock, JSON.stringify({ pid: process.ppid, hostname: 'another-host' }))
    const minuteAgo = new Date(Date.now() - 60_000)
    utimesSync(lock, minuteAgo, minuteAgo)
    // Another store instance did not write the lease, so it renews under the lock.
    expect(await createFileStore({ dir }).renewLease!('s1', 'owner-a', 60_000)).toMatchObject({ owner: 'owner-a' })
    expect(existsSync(lock)).toBe(false)
  })

  it.each([['not a lease record', 'not a lease {'], ['empty', '']])('treats a lease file that is %s as no lease', async (_, text) => {
    const dir = freshDir()
    const store = createFileStore({ dir })
    await store.create({ id: 's1', createdAt: 1000 })
    writeFileSync(join(dir, 's1.lease'), text)
    await store.appendTurns('s1', [userTurn('t1', 'unleased')])
    expect(await store.acquireLease!('s1', 'owner-a', 60_000)).toMatchObject({ owner: 'owner-a' })
    expect(await store.acquireLease!('s1', 'owner-b', 60_000).then(() => 'granted', (error: unknown) => (error as Error).name)).toBe('SessionLeaseError')
  })

  it('fences a writer on one store instance off once a second instance took the expired lease', async () => {
    const dir = freshDir()
    const first = createFileStore({ dir })
    const second = createFileStore({ dir })
    await first.create({ id: 's1', createdAt: 1000 })
    await first.acquireLease!('s1', 'owner-a', 60_000)
    await first.saveRun('s1', run('run_1'), { owner: 'owner-a' })
    await first.appendTurns('s1', [userTurn('t1', 'a')], { owner: 'owner-a' })
    await first.renewLease!('s1', 'owner-a', 20)
    await new Promise(resolve => setTimeout(resolve, 60))
    await second.acquireLease!('s1', 'owner-b', 60_000)
    await expect(first.appendTurns('s1', [userTurn('t2', 'late a')], { owner: 'owner-a' })).rejects.toBeInstanceOf(SessionLeaseError)
    await second.appendTurns('s1', [userTurn('t3', 'b')], { owner: 'owner-b' })
    expect((await second.load('s1'))?.turns.map(turn => turn.id)).toEqual(['t1', 't3'])
  })
})
