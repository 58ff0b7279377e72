import { describe, expect, it } from 'vitest'
import { createMemoryToolStateStore, createToolStateController, DEFAULT_MAX_VALUE_BYTES, stagedToolState } from '../../src/tool-state'

function controllerWith(initial: Record<string, unknown> = {}, maxValueBytes?: number) {
  return createToolStateController(createMemoryToolStateStore({ initial, maxValueBytes }))
}

describe('toolStateView reads', () => {
  it('merges the committed snapshot with the call\'s own staged writes', async () => {
    const state = controllerWith({ b: 1, a: 'x', gone: true })
    await state.hydrate()
    const view = state.begin('call-1')
    view.set('c', { n: 2 })
    view.delete('gone')
    view.set('a', 'y')
    expect(view.get('a')).toBe('y')
    expect(view.get('b')).toBe(1)
    expect(view.get<{ n: number }>('c')).toEqual({ n: 2 })
    expect(view.get('gone')).toBeUndefined()
    expect(view.has('gone')).toBe(false)
    expect(view.has('b')).toBe(true)
    expect(view.has('missing')).toBe(false)
    expect(view.keys()).toEqual(['a', 'b', 'c'])
  })

  it('lists keys in ascending order and shows a key again when it is set after a delete', async () => {
    const state = controllerWith({ zeta: 1, Alpha: 2, beta: 3 })
    await state.hydrate()
    const view = state.begin('c')
    view.delete('beta')
    view.set('beta', 4)
    view.set('aardvark', 0)
    expect(view.keys()).toEqual(['Alpha', 'aardvark', 'beta', 'zeta'])
    expect(view.get('beta')).toBe(4)
  })

  it('treats set(key, undefined) as a deletion', async () => {
    const state = controllerWith({ k: 1 })
    await state.hydrate()
    const view = state.begin('c')
    view.set('k', undefined)
    expect(view.has('k')).toBe(false)
    expect(stagedToolState(view).pending()).toEqual([{ key: 'k', delete: true }])
  })

  it('does not see another call\'s staged writes, but sees its commits as they land', async () => {
    const state = controllerWith({ shared: 0 })
    await state.hydrate()
    const a = state.begin('a')
    const b = state.begin('b')
    a.set('shared', 'from a')
    a.set('only-a', true)
    b.set('only-b', true)
    expect(b.get('shared')).toBe(0)
    expect(b.has('only-a')).toBe(false)
    expect(a.has('only-b')).toBe(false)
    await state.commit('a')
    expect(b.get('shared')).toBe('from a')
    expect(b.keys()).toEqual(['only-a', 'only-b', 'shared'])
    b.set('shared', 'from b')
    expect(b.get('shared')).toBe('from b')
    expect(state.committed.get('shared')).toBe('from a')
  })

  it('stores copies: changing a value after set or after get changes nothing', async () => {
    const state = controllerWith()
    await state.hydrate()
    const view = state.begin('c')
    const value = { list: [1, 2] }
    view.set('v', value)
    value.list.push(3)
    const read = view.get<{ list: number[] }>('v')!
    read.list.push(4)
    expect(view.get('v')).toEqual({ list: [1, 2] })
    expect(stagedToolState(view).pending()).toEqual([{ key: 'v', value: { list: [1, 2] } }])
    await state.commit('c')
    state.committed.get<{ list: number[] }>('v')!.list.push(5)
    expect(state.committed.get('v')).toEqual({ list: [1, 2] })
  })

  it('handles keys that look like object internals', async () => {
    const state = controllerWith()
    await state.hydrate()
    const view = state.begin('c')
    view.set('__proto__', { polluted: true })
    view.set('constructor', 1)
    expect(view.get('__proto__')).toEqual({ polluted: true })
    await state.commit('c')
    expect(state.committed.has('__proto__')).toBe(true)
    expect(Object.keys(state.snapshot())).toEqual(['__proto__', 'constructor'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('toolStateView.set checks', () => {
  class Point { x = 1 }
  const cyclic: Record<string, unknown> = {}
  cyclic.self = cyclic
  // eslint-disable-next-line no-sparse-arrays
  const sparse = [1, , 3]
  const rejected: [string, unknown][] = [
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
    ['a bigint', 10n],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a Date', new Date(0)],
    ['a Map', new Map([[1, 2]])],
    ['a class instance', new Point()],
    ['a cycle', cyclic],
    ['undefined inside an array', [1, undefined]],
    ['a hole in an array', sparse],
    ['a nested function', { deep: { fn: () => 1 } }],
  ]

  it.each(rejected)('throws a TypeError for %s and stages nothing', async (_, value) => {
    const state = controllerWith()
    const view = state.begin('c')
    expect(() => view.set('k', value)).toThrow(TypeError)
    expect(view.has('k')).toBe(false)
    expect(state.pending('c')).toEqual([])
  })

  it('names the offending path', () => {
    const view = controllerWith().begin('c')
    expect(() => view.set('k', { a: [0, { b: Number.NaN }] })).toThrow(/value\.a\[1\]\.b is NaN/)
  })

  it('accepts plain JSON data, null-prototype objects, shared references, and drops undefined properties', () => {
    const view = controllerWith().begin('c')
    const shared = { s: 1 }
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { x: 1 })
    view.set('k', { n: null, b: false, s: 'x', list: [shared, shared], bare, skip: undefined, num: -0.5 })
    expect(view.get('k')).toEqual({ n: null, b: false, s: 'x', list: [{ s: 1 }, { s: 1 }], bare: { x: 1 }, num: -0.5 })
    expect(Object.keys(view.get<object>('k')!)).not.toContain('skip')
  })

  it('refuses non-string keys', () => {
    const view = controllerWith().begin('c')
    expect(() => view.set(1 as unknown as string, 1)).toThrow(TypeError)
    expect(() => view.delete(undefined as unknown as string)).toThrow(TypeError)
  })

  it('enforces the store\'s maxValueBytes on the JSON size, in UTF-8 bytes', () => {
    const view = controllerWith({}, 12).begin('c')
    view.set('fits', 'x'.repeat(10)) // "xxxxxxxxxx" is 12 bytes of JSON
    expect(() => view.set('over', 'x'.repeat(11))).toThrow(RangeError)
    expect(() => view.set('wide', 'é'.repeat(6))).toThrow(/14 bytes/)
    expect(view.keys()).toEqual(['fits'])
  })

  it('defaults to DEFAULT_MAX_VALUE_BYTES (256 KiB) when the store declares no limit', () => {
    expect(DEFAULT_MAX_VALUE_BYTES).toBe(256 * 1024)
    const view = createToolStateController().begin('c')
    view.set('fits', 'x'.repeat(DEFAULT_MAX_VALUE_BYTES - 2))
    expect(() => view.set('over', 'x'.repeat(DEFAULT_MAX_VALUE_BYTES - 1))).toThrow(RangeError)
  })
})

describe('stagedToolState', () => {
  it('lists every staged op in order without consuming them, and clears them', () => {
    const view = controllerWith().begin('c')
    view.set('a', 1)
    view.set('a', 2)
    view.delete('b')
    const staged = stagedToolState(view)
    const ops = [{ key: 'a', value: 1 }, { key: 'a', value: 2 }, { key: 'b', delete: true }]
    expect(staged.pending()).toEqual(ops)
    expect(staged.pending()).toEqual(ops)
    staged.clear()
    expect(staged.pending()).toEqual([])
    expect(view.has('a')).toBe(false)
  })

  it('restores journaled ops in place of the staged ones, all or nothing', async () => {
    const state = controllerWith({ kept: 1 })
    await state.hydrate()
    const view = state.begin('c')
    view.set('x', 'before')
    const staged = stagedToolState(view)
    staged.restore([{ key: 'y', value: [1] }, { key: 'kept', delete: true }])
    expect(view.keys()).toEqual(['y'])
    expect(() => staged.restore([{ key: 'z', value: 1 }, { key: 'bad', value: () => 0 }])).toThrow(TypeError)
    expect(staged.pending()).toEqual([{ key: 'y', value: [1] }, { key: 'kept', delete: true }])
    await state.commit('c')
    expect(state.snapshot()).toEqual({ y: [1] })
  })

  it('is not reachable from the view and refuses objects that are not controller views', () => {
    const view = controllerWith().begin('c')
    expect(Object.keys(view).sort()).toEqual(['delete', 'get', 'has', 'keys', 'set'])
    expect(() => stagedToolState({ ...view })).toThrow(TypeError)
  })
})

describe('a settled view', () => {
  it('refuses writes after commit or discard, and begin() then gives a fresh view', async () => {
    const state = controllerWith()
    const view = state.begin('c')
    view.set('a', 1)
    await state.commit('c')
    expect(() => view.set('b', 2)).toThrow(/already committed or discarded/)
    expect(() => view.delete('a')).toThrow(/already committed or discarded/)
    expect(() => stagedToolState(view).restore([])).toThrow(/already committed or discarded/)
    expect(view.get('a')).toBe(1)
    const next = state.begin('c')
    expect(next).not.toBe(view)
    expect(state.pending('c')).toEqual([])

    next.set('x', 1)
    state.discard('c')
    expect(() => next.set('y', 1)).toThrow(/already committed or discarded/)
    expect(next.has('x')).toBe(false)
  })
})
