/**
 * Ids the loop mints live as long as their session, so their size counts:
 * `crypto.randomUUID()` returns a chain of concatenation nodes, the default
 * clock a flat string (`flatUUID`). Measured in a child process with the
 * collector exposed: the heap kept per id, the holding array included.
 */

import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { DEFAULT_AGENT_CLOCK, flatUUID } from '../../src/core/clock'

const clockModule = fileURLToPath(new URL('../../src/core/clock.ts', import.meta.url))

/** Bytes of heap kept per id when `count` ids from `source` are held. */
async function bytesPerId(source: 'flatUUID' | 'crypto.randomUUID'): Promise<number> {
  const script = `
    const { flatUUID } = await import(${JSON.stringify(clockModule)})
    const mint = ${source === 'flatUUID' ? 'flatUUID' : '() => globalThis.crypto.randomUUID()'}
    const count = 20000
    globalThis.gc(); globalThis.gc()
    const before = process.memoryUsage().heapUsed
    const ids = new Array(count)
    for (let i = 0; i < count; i++) ids[i] = mint()
    globalThis.gc(); globalThis.gc()
    const after = process.memoryUsage().heapUsed
    process.stdout.write(String((after - before) / count) + ' ' + ids.length)
  `
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script])
  return Number(stdout.split(' ')[0])
}

describe('the default clock\'s ids', () => {
  it('are v4 UUIDs, each new', () => {
    const ids: string[] = []
    for (let i = 0; i < 100; i++)
      ids.push(DEFAULT_AGENT_CLOCK.randomUUID())
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(new Set(ids).size).toBe(100)
    expect(DEFAULT_AGENT_CLOCK.randomUUID).toBe(flatUUID)
  })

  it('are flat strings: a held id costs a fraction of one from crypto.randomUUID()', async () => {
    const [flat, chained] = await Promise.all([bytesPerId('flatUUID'), bytesPerId('crypto.randomUUID')])
    // A 36-character one-byte string is 56 bytes, plus 8 for its slot in the array.
    expect(flat).toBeLessThan(100)
    expect(chained).toBeGreaterThan(2 * flat)
  }, 30_000)
})
