import type { ToolStateOp, ToolStateStore } from '../../src/tool-state'
import { describe, expect, it, vi } from 'vitest'
import { createMemoryToolStateStore, createToolStateController } from '../../src/tool-state'

function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((res) => {
    resolve = res
  })
  return { promise, resolve }
}

/** A memory store whose calls are recorded, with hooks to delay or fail them. */
function recordingStore(initial: Record<string, unknown> = {}) {
  const inner = createMemoryToolStateStore({ initial })
  const commits: ToolStateOp[][] = []
  const store = {
    load: vi.fn(() => inner.load()),
    commit: vi.fn(async (ops: readonly ToolStateOp[]) => {
      commits.push([...ops])
      await inner.commit(ops)
    }),
  } satisfies ToolStateStore
  return { store, commits, inner }
}

describe('toolStateController.begin', () => {
  it('returns the same view for repeated calls with one id and separate views per id', () => {
    const state = createToolStateController()
    const view = state.begin('a')
    expect(state.begin('a')).toBe(view)
    expect(state.begin('b')).not.toBe(view)
  })
})

describe('toolStateController.commit', () => {
  it('writes the staged ops to the store in staging order, then applies them to the snapshot', async () => {
    const { store, commits } = recordingStore({ old: 1 })
    const state = createToolStateController(store)
    await state.hydrate()
    const view = state.begin('c')
    view.set('a', 1)
    view.set('a', 2)
    view.delete('old')
    const ops = [{ key: 'a', value: 1 }, { key: 'a', value: 2 }, { key: 'old', delete: true }]
    expect(state.committed.has('a')).toBe(false)
    await expect(state.commit('c')).resolves.toEqual({ ok: true, ops })
    expect(commits).toEqual([ops])
    expect(state.snapshot()).toEqual({ a: 2 })
    expect(state.pending('c')).toEqual([])
  })

  it('does not touch the store when nothing was staged, or for an unknown call', async () => {
    const { store } = recordingStore()
    const state = createToolStateController(store)
    state.begin('quiet').get('anything')
    await expect(state.commit('quiet')).resolves.toEqual({ ok: true, ops: [] })
    await expect(state.commit('never-began')).resolves.toEqual({ ok: true, ops: [] })
    const cleared = state.begin('cleared')
    cleared.set('x', 1)
    state.discard('cleared')
    await expect(state.commit('cleared')).resolves.toEqual({ ok: true, ops: [] })
    expect(store.commit).not.toHaveBeenCalled()
  })

  it('serializes commits in call order, even when the first store write is slow', async () => {
    const gate = deferred()
    const seen: string[] = []
    const store: ToolStateStore = {
      load: () => ({}),
      commit: async (ops) => {
        seen.push(`start ${String(ops[0].value)}`)
        if (ops[0].value === 'first')
          await gate.promise
        seen.push(`end ${String(ops[0].value)}`)
      },
    }
    const state = createToolStateController(store)
    await state.hydrate()
    state.begin('1').set('k', 'first')
    state.begin('2').set('k', 'second')
    const first = state.commit('1')
    const second = state.commit('2')
    await Promise.resolve()
    await Promise.resolve()
    expect(seen).toEqual(['start first'])
    gate.resolve()
    await Promise.all([first, second])
    expect(seen).toEqual(['start first', 'end first', 'start second', 'end second'])
    expect(state.committed.get('k')).toBe('second')
  })

  it('reports a rejected store write as a value, keeps the snapshot, drops the view, and keeps working', async () => {
    const failure = new Error('disk full')
    let fail = true
    const inner = createMemoryToolStateStore()
    const store: ToolStateStore = {
      load: () => inner.load(),
      commit: async (ops) => {
        if (fail)
          throw failure
        await inner.commit(ops)
      },
    }
    const state = createToolStateController(store)
    await state.hydrate()
    const view = state.begin('c')
    view.set('lost', 1)
    await expect(state.commit('c')).resolves.toEqual({ ok: false, error: failure, ops: [{ key: 'lost', value: 1 }] })
    expect(state.committed.has('lost')).toBe(false)
    expect(state.pending('c')).toEqual([])
    expect(() => view.set('again', 1)).toThrow()
    expect(state.begin('c')).not.toBe(view)

    fail = false
    state.begin('d').set('saved', 2)
    await expect(state.commit('d')).resolves.toMatchObject({ ok: true })
    expect(state.snapshot()).toEqual({ saved: 2 })
  })

  it('also turns a synchronous throw from the store into a failed result', async () => {
    const state = createToolStateController({ load: () => ({}), commit: () => {
      throw new Error('sync')
    } })
    state.begin('c').set('k', 1)
    const result = await state.commit('c')
    expect(result.ok).toBe(false)
    expect(result.ok === false && (result.error as Error).message).toBe('sync')
  })

  it('hands the store copies, so a store that mutates ops cannot change the state', async () => {
    const state = createToolStateController({
      load: () => ({}),
      commit: (ops) => {
        (ops[0].value as number[]).push(99)
      },
    })
    state.begin('c').set('k', [1])
    const result = await state.commit('c')
    expect(result.ops).toEqual([{ key: 'k', value: [1] }])
    expect(state.committed.get('k')).toEqual([1])
  })
})

describe('toolStateController.discard and pending', () => {
  it('discard drops the staged ops without a store write', async () => {
    const { store } = recordingStore({ k: 'kept' })
    const state = createToolStateController(store)
    await state.hydrate()
    state.begin('c').set('k', 'changed')
    state.discard('c')
    state.discard('unknown')
    expect(store.commit).not.toHaveBeenCalled()
    expect(state.committed.get('k')).toBe('kept')
    expect(state.begin('c').get('k')).toBe('kept')
  })

  it('pending returns copies of the staged ops in order, and nothing for an unknown call', () => {
    const state = createToolStateController()
    const view = state.begin('c')
    view.set('b', { x: 1 })
    view.delete('a')
    const pending = state.pending('c')
    expect(pending).toEqual([{ key: 'b', value: { x: 1 } }, { key: 'a', delete: true }]);
    (pending[0].value as { x: number }).x = 2
    expect(view.get('b')).toEqual({ x: 1 })
    expect(state.pending('other')).toEqual([])
  })
})

describe('toolStateController.hydrate', () => {
  it('loads once for concurrent and later calls', async () => {
    const { store } = recordingStore({ a: 1 })
    const state = createToolStateController(store)
    const first = state.hydrate()
    expect(state.hydrate()).toBe(first)
    await Promise.all([first, state.hydrate()])
    await state.hydrate()
    expect(store.load).toHaveBeenCalledTimes(1)
    expect(state.snapshot()).toEqual({ a: 1 })
  })

  it('rejects on a failed load and loads again on the next call', async () => {
    let attempts = 0
    const state = createToolStateController({
      load: async () => {
        attempts++
        if (attempts === 1)
          throw new Error('offline')
        return { k: 'loaded' }
      },
      commit: () => {},
    })
    await expect(state.hydrate()).rejects.toThrow('offline')
    expect(state.committed.has('k')).toBe(false)
    await state.hydrate()
    await state.hydrate()
    expect(attempts).toBe(2)
    expect(state.committed.get('k')).toBe('loaded')
  })

  it('rejects a load that is not a record, and retries', async () => {
    const load = vi.fn().mockReturnValueOnce(null).mockReturnValueOnce([]).mockReturnValue({ ok: true })
    const state = createToolStateController({ load, commit: () => {} })
    await expect(state.hydrate()).rejects.toThrow(TypeError)
    await expect(state.hydrate()).rejects.toThrow(TypeError)
    await state.hydrate()
    expect(state.snapshot()).toEqual({ ok: true })
  })

  it('keeps commits made before or during the load on top of what it returns', async () => {
    const loading = deferred<Record<string, unknown>>()
    const state = createToolStateController({ load: () => loading.promise, commit: () => {} })
    state.begin('early').set('early', 1)
    await state.commit('early')
    const hydrating = state.hydrate()
    state.begin('during').delete('stale')
    state.begin('during').set('during', 2)
    await state.commit('during')
    loading.resolve({ stale: 'x', early: 0, other: 3 })
    await hydrating
    expect(state.snapshot()).toEqual({ during: 2, early: 1, other: 3 })
    state.begin('after').set('after', 4)
    await state.commit('after')
    expect(state.snapshot()).toEqual({ after: 4, during: 2, early: 1, other: 3 })
  })
})

describe('snapshot and committed', () => {
  it('snapshot is a sorted copy; committed reads live and ignores staged writes', async () => {
    const state = createToolStateController(createMemoryToolStateStore({ initial: { b: [1], a: 0 } }))
    const before = state.committed
    expect(before.keys()).toEqual([])
    await state.hydrate()
    const snap = state.snapshot()
    expect(Object.keys(snap)).toEqual(['a', 'b'])
    ;(snap.b as number[]).push(2)
    expect(state.committed.get('b')).toEqual([1])

    const view = state.begin('c')
    view.set('c', 'staged')
    view.delete('a')
    expect(state.committed.keys()).toEqual(['a', 'b'])
    expect(state.committed.has('c')).toBe(false)
    expect(state.snapshot()).toEqual({ a: 0, b: [1] })
    await state.commit('c')
    expect(before.keys()).toEqual(['b', 'c'])
    expect(before.get('c')).toBe('staged')
    expect(before.has('a')).toBe(false)
  })

  it('keeps state across views and across hydrate calls (one controller per agent)', async () => {
    const state = createToolStateController()
    await state.hydrate()
    state.begin('run1-call').set('count', 1)
    await state.commit('run1-call')
    await state.hydrate()
    const view = state.begin('run2-call')
    view.set('count', view.get<number>('count')! + 1)
    await state.commit('run2-call')
    expect(state.committed.get('count')).toBe(2)
  })
})

describe('createToolStateController options', () => {
  it('refuses a store limit that is not a positive number', () => {
    for (const maxValueBytes of [0, -1, Number.NaN])
      expect(() => createToolStateController({ load: () => ({}), commit: () => {}, maxValueBytes })).toThrow(RangeError)
  })
})

describe('createMemoryToolStateStore', () => {
  it('loads copies of its initial state and applies committed ops', async () => {
    const initial = { a: { n: 1 }, skip: undefined }
    const store = createMemoryToolStateStore({ initial, maxValueBytes: 64 })
    initial.a.n = 2
    expect(store.maxValueBytes).toBe(64)
    const loaded = await store.load()
    expect(loaded).toEqual({ a: { n: 1 } })
    ;(loaded.a as { n: number }).n = 3
    await store.commit([{ key: 'b', value: 1 }, { key: 'a', delete: true }])
    expect(await store.load()).toEqual({ b: 1 })
    expect('maxValueBytes' in createMemoryToolStateStore()).toBe(false)
  })
})
