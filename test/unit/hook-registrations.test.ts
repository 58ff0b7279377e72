import type { AgentHooks } from '../../src'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { Hookable } from 'hookable'
import { describe, expect, it } from 'vitest'
import { createHookBus, hasHookHandlers } from '../../src/hooks/bus'
import { trackRegistrations } from '../../src/hooks/registrations'

type Bus = ReturnType<typeof createHookBus>
const NAMES = ['usage', 'stream:text', 'tool:gate'] as const

/** Whether calling `name` reaches a handler or an observer, found by calling it. */
async function reaches(bus: Bus, name: (typeof NAMES)[number], hits: { count: number }): Promise<boolean> {
  const before = hits.count
  await bus.callHook(name, {} as never)
  return hits.count > before
}

describe('registration counting through hookable\'s public methods', () => {
  it('follows hookOnce, addHooks, removeHooks, clearHook and removeAllHooks', async () => {
    const bus = createHookBus()
    bus.hookOnce('usage', () => {})
    expect(hasHookHandlers(bus, 'usage')).toBe(true)
    await bus.callHook('usage', {} as never)
    expect(hasHookHandlers(bus, 'usage')).toBe(false)

    const handler = (): void => {}
    const remove = bus.addHooks({ 'usage': handler, 'tool:gate': handler })
    expect(hasHookHandlers(bus, 'tool:gate')).toBe(true)
    remove()
    expect(hasHookHandlers(bus, 'usage')).toBe(false)
    expect(hasHookHandlers(bus, 'tool:gate')).toBe(false)

    bus.addHooks({ usage: handler })
    bus.removeHooks({ usage: handler })
    expect(hasHookHandlers(bus, 'usage')).toBe(false)

    bus.hook('usage', handler)
    bus.clearHook('usage')
    expect(hasHookHandlers(bus, 'usage')).toBe(false)

    bus.hook('stream:text', handler)
    bus.removeAllHooks()
    expect(hasHookHandlers(bus, 'stream:text')).toBe(false)
  })

  it('keeps the second copy of a handler registered twice', () => {
    const bus = createHookBus()
    const handler = (): void => {}
    const first = bus.hook('usage', handler)
    bus.hook('usage', handler)
    first()
    first()
    expect(hasHookHandlers(bus, 'usage')).toBe(true)
    bus.removeHook('usage', handler)
    expect(hasHookHandlers(bus, 'usage')).toBe(false)
  })

  it('stops trusting its counts once a deprecated name may be renamed', () => {
    const bus = createHookBus()
    bus.deprecateHook('stream:text', 'usage')
    bus.hook('stream:text', () => {}, { allowDeprecated: true })
    expect(hasHookHandlers(bus, 'usage')).toBe(true)
  })

  it('answers true after a registration that bypassed the methods it counts (as an upgrade might)', async () => {
    class Upgraded extends Hookable<AgentHooks> {
      override hookOnce(name: keyof AgentHooks, handler: AgentHooks[keyof AgentHooks]): () => void {
        const table = (this as unknown as { _hooks: Record<string, unknown[]> })._hooks
        ;(table[name] ??= []).push(handler)
        return () => {}
      }
    }
    const bus = trackRegistrations(new Upgraded() as unknown as Bus)
    let calls = 0
    bus.hookOnce('usage', () => void calls++)
    expect(hasHookHandlers(bus, 'usage')).toBe(true)
    await bus.callHook('usage', {} as never)
    expect(calls).toBe(1)
  })

  it('never says "nobody listens" when a call would reach someone, and is exact without deprecations', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('hook' as const), name: fc.constantFrom(...NAMES), shared: fc.boolean() }),
      fc.record({ kind: fc.constant('once' as const), name: fc.constantFrom(...NAMES) }),
      fc.record({ kind: fc.constant('add' as const), names: fc.subarray([...NAMES]) }),
      fc.record({ kind: fc.constant('unregister' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('removeHook' as const), name: fc.constantFrom(...NAMES) }),
      fc.record({ kind: fc.constant('clear' as const), name: fc.constantFrom(...NAMES) }),
      fc.record({ kind: fc.constant('removeAll' as const) }),
      fc.record({ kind: fc.constant('observe' as const) }),
      fc.record({ kind: fc.constant('call' as const), name: fc.constantFrom(...NAMES) }),
    )
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
      const bus = createHookBus()
      const hits = { count: 0 }
      const shared = (): void => void hits.count++
      const removers: (() => void)[] = []
      for (const step of ops) {
        switch (step.kind) {
          case 'hook':
            removers.push(bus.hook(step.name, step.shared ? shared : () => void hits.count++))
            break
          case 'once':
            removers.push(bus.hookOnce(step.name, () => void hits.count++))
            break
          case 'add':
            removers.push(bus.addHooks(Object.fromEntries(step.names.map(name => [name, shared]))))
            break
          case 'unregister':
            removers[step.pick % Math.max(1, removers.length)]?.()
            break
          case 'removeHook':
            bus.removeHook(step.name, shared)
            break
          case 'clear':
            bus.clearHook(step.name)
            break
          case 'removeAll':
            bus.removeAllHooks()
            break
          case 'observe':
            removers.push(bus.beforeEach(() => void hits.count++))
            break
          case 'call':
            await bus.callHook(step.name, {} as never)
            break
        }
      }
      for (const name of NAMES) {
        const claimed = hasHookHandlers(bus, name)
        expect(claimed).toBe(await reaches(bus, name, hits))
      }
    }), { numRuns: 300 })
  })

  it('leaves hookable\'s private fields alone everywhere in src/', () => {
    const src = fileURLToPath(new URL('../../src', import.meta.url))
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(file => file.endsWith('.ts'))
    const readers = files.filter(file => /\b_(?:hooks|before|after|deprecatedHooks|deprecatedMessages)\b/.test(readFileSync(join(src, file), 'utf8')))
    expect(files.length).toBeGreaterThan(100)
    expect(readers).toEqual([])
  })
})
