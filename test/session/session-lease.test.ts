import type { SessionStore } from '../../src/session/types'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { SessionLeaseError } from '../../src/errors'
import { createSession, loadSession } from '../../src/session'
import { createMemoryStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'

/** A tool that waits until the test lets it go, and says when it started. */
function gatedTool() {
  let started!: () => void
  let release!: () => void
  const running = new Promise<void>((resolve) => {
    started = resolve
  })
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const tool = {
    spec: { name: 'wait', description: 'Wait for the test', inputSchema: { type: 'object' } },
    execute: async () => {
      started()
      await released
      return 'waited'
    },
  }
  return { tool, running, release }
}

const waitingScript = () => scriptedProvider([{ toolCalls: [{ name: 'wait', input: {} }] }, { text: 'done' }])
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

async function leaseErrorOf(promise: Promise<unknown>): Promise<SessionLeaseError> {
  const error = await promise.then(() => undefined, (failure: unknown) => failure)
  expect(error).toBeInstanceOf(SessionLeaseError)
  return error as SessionLeaseError
}

describe('a run holds its session\'s lease', () => {
  it('refuses a second writer on another handle of the session, which then continues the whole conversation', async () => {
    const store = createMemoryStore()
    const { id } = await createSession({ store })
    const first = await loadSession(id, { store })
    const second = await loadSession(id, { store })
    const gate = gatedTool()
    const running = createAgent({ provider: waitingScript(), tools: { wait: gate.tool }, session: first }).run({ prompt: 'first conversation' })
    await gate.running

    const provider = scriptedProvider([{ text: 'second answer' }])
    const intruder = createAgent({ provider, session: second })
    const refused = await leaseErrorOf(intruder.run({ prompt: 'second conversation' }))
    expect(refused).toMatchObject({ sessionId: id, reason: 'held', holder: { owner: first.lease!.owner } })
    expect(provider.requests).toHaveLength(0)

    gate.release()
    await running
    expect(first.lease).toBeUndefined()
    const stored = (await store.load(id))!
    expect(stored.runs).toHaveLength(1)
    expect(stored.turns.every(turn => turn.runId === stored.runs[0].id)).toBe(true)

    // Once the first run is done, the second handle takes over and sees the turns the first wrote.
    await intruder.run({ prompt: 'second conversation' })
    const texts = provider.requests[0].messages.flatMap(message => message.content.flatMap(block => block.type === 'text' ? [block.text] : []))
    expect(texts).toEqual(['first conversation', 'done', 'second conversation'])
    expect(second.turns.map(turn => turn.id)).toEqual((await store.load(id))!.turns.map(turn => turn.id))
  })

  it('refuses a second top-level run on the same handle', async () => {
    const session = await createSession()
    const gate = gatedTool()
    const running = createAgent({ provider: waitingScript(), tools: { wait: gate.tool }, session }).run({ prompt: 'one' })
    await gate.running
    await leaseErrorOf(createAgent({ provider: scriptedProvider([{ text: 'two' }]), session }).run({ prompt: 'two' }))
    gate.release()
    await running
    expect(session.turns.map(turn => turn.content)).toHaveLength(4)
  })

  it('lets only one of two top-level runs started together on one handle in', async () => {
    const session = await createSession()
    const gate = gatedTool()
    const one = createAgent({ provider: waitingScript(), tools: { wait: gate.tool }, session }).run({ prompt: 'one' })
    const two = createAgent({ provider: waitingScript(), tools: { wait: gate.tool }, session }).run({ prompt: 'two' })
    await leaseErrorOf(two)
    gate.release()
    await one
    expect(session.runs).toHaveLength(1)
  })

  it('keeps the lease while the run lives by renewing it every leaseRenewMs', async () => {
    const store = createMemoryStore()
    const session = await createSession({ store })
    const gate = gatedTool()
    // Renewed every 150 ms, so the lease lasts 450 ms: long enough for a loaded machine's timer delays.
    const running = createAgent({ provider: waitingScript(), tools: { wait: gate.tool }, session }).run({ prompt: 'go', leaseRenewMs: 150 })
    await gate.running
    const first = session.lease!.expiresAt
    // Three lease lifetimes pass during the tool call: without renewals the lease would have run out.
    await sleep(1400)
    expect(session.lease!.expiresAt).toBeGreaterThan(first)
    await leaseErrorOf(store.acquireLease!(session.id, 'someone-else', 60_000))
    gate.release()
    await running
    expect(await store.acquireLease!(session.id, 'someone-else', 60_000)).toMatchObject({ previousOwner: expect.any(String) })
  })

  it('stops a run whose lease was taken over, with SessionLeaseError, and writes nothing after', async () => {
    const store = createMemoryStore()
    const session = await createSession({ store })
    const gate = gatedTool()
    const provider = scriptedProvider([{ toolCalls: [{ name: 'wait', input: {} }] }, { toolCalls: [{ name: 'wait', input: {} }] }, { text: 'done' }])
    const running = createAgent({ provider, tools: { wait: gate.tool }, session }).run({ prompt: 'go', leaseRenewMs: 10 })
    await gate.running
    const stored = (await store.load(session.id))!.turns.length
    // Someone breaks the lease (as an operator recovering a session would) and takes it.
    await store.releaseLease!(session.id, session.lease!.owner)
    await store.acquireLease!(session.id, 'new-owner', 60_000)
    const lost = await leaseErrorOf(running)
    expect(lost).toMatchObject({ sessionId: session.id, reason: 'lost', holder: { owner: 'new-owner' } })
    gate.release()
    expect((await store.load(session.id))!.turns).toHaveLength(stored)
    expect(provider.requests).toHaveLength(1)
  })

  it('releases the lease when the run fails or is aborted', async () => {
    const store = createMemoryStore()
    const session = await createSession({ store })
    const failing = createAgent({ provider: scriptedProvider([{ error: { kind: 'auth', retryable: false, message: 'bad key' } }]), session })
    await expect(failing.run({ prompt: 'go' })).rejects.toThrow('bad key')
    expect(session.lease).toBeUndefined()
    await store.acquireLease!(session.id, 'after-error', 60_000)
    await store.releaseLease!(session.id, 'after-error')

    const gate = gatedTool()
    const agent = createAgent({ provider: waitingScript(), tools: { wait: gate.tool }, session })
    const running = agent.run({ prompt: 'go' })
    await gate.running
    agent.abort()
    gate.release()
    expect((await running).stopReason).toBe('aborted')
    expect(await store.acquireLease!(session.id, 'after-abort', 60_000)).toMatchObject({ owner: 'after-abort' })
  })

  it('rides on a lease the host took on the handle, and leaves it held', async () => {
    const store = createMemoryStore()
    const session = await createSession({ store })
    const lease = await session.acquireLease()
    await createAgent({ provider: scriptedProvider([{ text: 'hi' }]), session }).run({ prompt: 'hello' })
    expect(session.lease?.owner).toBe(lease.owner)
    await leaseErrorOf(store.acquireLease!(session.id, 'other', 60_000))
    await session.releaseLease()
    expect(session.lease).toBeUndefined()
  })

  it('lets a subagent write through its parent\'s lease', async () => {
    const store = createMemoryStore()
    const session = await createSession({ store })
    const child = createAgent({ provider: scriptedProvider([{ text: 'child answer' }]), session })
    const spawnLike = {
      spec: { name: 'delegate', description: 'Run a child on this session', inputSchema: { type: 'object' } },
      execute: async () => (await child.run({ prompt: 'child task', depth: 1 })).text,
    }
    const parent = createAgent({ provider: scriptedProvider([{ toolCalls: [{ name: 'delegate', input: {} }] }, { text: 'parent done' }]), tools: { delegate: spawnLike }, session })
    expect((await parent.run({ prompt: 'parent task' })).text).toBe('parent done')
    const stored = (await store.load(session.id))!
    expect(stored.runs.map(record => record.status)).toEqual(['completed', 'completed'])
    expect(stored.turns.some(turn => turn.content.some(block => block.type === 'text' && block.text === 'child answer'))).toBe(true)
  })

  it('refuses a leaseRenewMs that is not a usable interval', async () => {
    const session = await createSession()
    const agent = createAgent({ provider: scriptedProvider([{ text: 'x' }]), session })
    for (const leaseRenewMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31])
      await expect(agent.run({ prompt: 'go', leaseRenewMs })).rejects.toThrow(/leaseRenewMs/)
    expect(session.lease).toBeUndefined()
  })

  it('keeps leases in this process for a store that has none of its own', async () => {
    const inner = createMemoryStore()
    const plain: SessionStore = {
      create: record => inner.create(record),
      load: (id, options) => inner.load(id, options),
      appendTurns: (id, turns) => inner.appendTurns(id, turns),
      saveRun: (id, run) => inner.saveRun(id, run),
      delete: id => inner.delete(id),
      list: () => inner.list(),
    }
    const { id } = await createSession({ store: plain })
    const first = await loadSession(id, { store: plain })
    const second = await loadSession(id, { store: plain })
    const gate = gatedTool()
    const running = createAgent({ provider: waitingScript(), tools: { wait: gate.tool }, session: first }).run({ prompt: 'one' })
    await gate.running
    await leaseErrorOf(createAgent({ provider: scriptedProvider([{ text: 'two' }]), session: second }).run({ prompt: 'two' }))
    gate.release()
    await running
    expect((await plain.load(id))!.runs).toHaveLength(1)
  })
})

describe('every wait on the lease is bounded', () => {
  /** A memory store whose lease calls wait for the test when it says so. */
  function stallingStore() {
    const inner = createMemoryStore()
    const stalls = { acquire: false, renew: false }
    let letAcquireGo!: () => void
    const acquireHeld = new Promise<void>((resolve) => {
      letAcquireGo = resolve
    })
    const store: SessionStore = {
      ...inner,
      async acquireLease(id, owner, ttlMs, origin) {
        if (stalls.acquire)
          await acquireHeld
        return inner.acquireLease!(id, owner, ttlMs, origin)
      },
      async renewLease(id, owner, ttlMs) {
        if (stalls.renew)
          await new Promise(() => {})
        return inner.renewLease!(id, owner, ttlMs)
      },
    }
    return { store, stalls, letAcquireGo }
  }

  it('gives up waiting for the lease when the run is aborted, and lets a late grant go', async () => {
    const { store, stalls, letAcquireGo } = stallingStore()
    const session = await createSession({ store })
    stalls.acquire = true
    const agent = createAgent({ provider: scriptedProvider([{ text: 'never' }]), session })
    const running = agent.run({ prompt: 'go' })
    await sleep(20)
    agent.abort()
    await expect(running).rejects.toThrow(/abort/i)
    letAcquireGo()
    await sleep(20)
    expect(session.lease).toBeUndefined()
    expect(await store.acquireLease!(session.id, 'other', 60_000)).toMatchObject({ owner: 'other' })
  })

  it('loses the lease when a renewal never settles before it runs out, and stops the run', async () => {
    const { store, stalls } = stallingStore()
    const session = await createSession({ store })
    const gate = gatedTool()
    const running = createAgent({ provider: waitingScript(), tools: { wait: gate.tool }, session }).run({ prompt: 'go', leaseRenewMs: 20 })
    await gate.running
    stalls.renew = true
    expect(await leaseErrorOf(running)).toMatchObject({ sessionId: session.id, reason: 'lost' })
    gate.release()
  })
})
