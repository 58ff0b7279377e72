import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { withAccessors, withGetters } from '../../src/core/fast-accessors'
import { bundleChildScript } from '../support/child-bundle'

interface Counter { readonly label: string, readonly count: number }

describe('withGetters', () => {
  it('reads each object through its own function, on every read', () => {
    let a = 0
    let b = 100
    const first = withGetters<Counter, 'count'>({ label: 'a' }, { count: () => a++ })
    const second = withGetters<Counter, 'count'>({ label: 'b' }, { count: () => b++ })
    expect([first.count, first.count, second.count, first.count]).toEqual([0, 1, 100, 2])
  })

  it('adds an own, enumerable, configurable accessor, as a literal getter is', () => {
    const counter = withGetters<Counter, 'count'>({ label: 'x' }, { count: () => 7 })
    const descriptor = Object.getOwnPropertyDescriptor(counter, 'count')!
    expect(typeof descriptor.get).toBe('function')
    expect(descriptor.enumerable).toBe(true)
    expect(descriptor.configurable).toBe(true)
    expect(Object.keys(counter)).toEqual(['label', 'count'])
    // A spread and JSON see the value at the time of the copy.
    expect({ ...counter }).toEqual({ label: 'x', count: 7 })
    expect(JSON.parse(JSON.stringify(counter))).toEqual({ label: 'x', count: 7 })
  })

  it('answers a read through an object that inherits from the target', () => {
    const counter = withGetters<Counter, 'count'>({ label: 'x' }, { count: () => 3 })
    const child = Object.create(counter) as Counter
    expect(child.count).toBe(3)
  })
})

describe('withAccessors', () => {
  interface Box { value: number, readonly doubled: number, state: { n: number } }
  it('defines shared accessors that read and write through `this`', () => {
    const accessors = {
      doubled: { get(this: Box) { return this.state.n * 2 }, enumerable: true as const, configurable: true as const },
      value: {
        get(this: Box) {
          return this.state.n
        },
        set(this: Box, n: number) {
          this.state.n = n
        },
        enumerable: true as const,
        configurable: true as const,
      },
    }
    const one = withAccessors<Box, 'doubled' | 'value'>({ state: { n: 1 } }, accessors)
    const two = withAccessors<Box, 'doubled' | 'value'>({ state: { n: 5 } }, accessors)
    one.value = 4
    expect([one.value, one.doubled, two.value, two.doubled]).toEqual([4, 8, 5, 10])
  })
})

describe('the objects the loop reads on every step', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-fast-objects-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('are fast objects in V8, not dictionaries', async () => {
    const script = await bundleChildScript('fast-objects-child', dir)
    const { stdout } = await promisify(execFile)(process.execPath, ['--allow-natives-syntax', script], { timeout: 30_000 })
    const fast = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, boolean>
    expect(fast).toMatchObject({
      toolContext: true,
      runView: true,
      runTools: true,
      session: true,
      agent: true,
      provider: true,
      bundledCatalog: true,
    })
    // What this guards against, on the engine the tests run on: the same check finds a literal with a getter slow.
    if (process.versions.node.startsWith('20.'))
      expect(fast.literalWithGetter).toBe(false)
  }, 60_000)
})
