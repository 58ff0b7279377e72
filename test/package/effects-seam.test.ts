import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// The loop, the agent and the policies read time, ids and randomness, and
// wait, only through the run's effects (`RunEffects`, src/core/effects.ts) or
// the run's clock (`run.clock`, journaled metadata). Timers that bound real
// waits read real time through `timerNow()` and set timers through
// `startTimer` (src/core/timer.ts). Both seams live in src/core/, outside the
// folders checked here, so no file in them is exempt.

const src = fileURLToPath(new URL('../../src', import.meta.url))
const CHECKED = ['loop', 'agent', 'policies']

const DIRECT: readonly { name: string, pattern: RegExp }[] = [
  { name: 'Date.now', pattern: /\bDate\.now\s*\(/ },
  { name: 'new Date()', pattern: /\bnew Date\s*\(\s*\)/ },
  { name: 'performance.now', pattern: /\bperformance\.now\s*\(/ },
  { name: 'Math.random', pattern: /\bMath\.random\b/ },
  // A clock's `randomUUID` (`run.clock.randomUUID()`) is the seam for recorded ids; any other is not.
  { name: 'randomUUID', pattern: /(?<!\bclock\.)\brandomUUID\b/ },
  { name: 'setTimeout', pattern: /\bsetTimeout\b|\bsetInterval\b|\bsetImmediate\b/ },
]

/** The code of a source file, without its comments (which may name what code may not call). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
}

/** The direct reads in `text`, by name. */
function directReads(text: string): string[] {
  const body = code(text)
  return DIRECT.filter(({ pattern }) => pattern.test(body)).map(({ name }) => name)
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? files(path) : entry.name.endsWith('.ts') ? [path] : []
  })
}

describe('the effects seam', () => {
  it('finds each kind of direct read, and not the clock\'s ids or comments', () => {
    expect(directReads('const t = Date.now()')).toEqual(['Date.now'])
    expect(directReads('const d = new Date()')).toEqual(['new Date()'])
    expect(directReads('const t = performance.now()')).toEqual(['performance.now'])
    expect(directReads('backoff(1, config, undefined, Math.random)')).toEqual(['Math.random'])
    expect(directReads(`import { randomUUID } from 'node:crypto'`)).toEqual(['randomUUID'])
    expect(directReads('const id = globalThis.crypto.randomUUID()')).toEqual(['randomUUID'])
    expect(directReads('setTimeout(fire, 10)')).toEqual(['setTimeout'])
    expect(directReads('const id = run.clock.randomUUID()')).toEqual([])
    expect(directReads('// Date.now() is not read here\n/* nor Math.random() */ const x = 1')).toEqual([])
  })

  it('no module of the loop, the agent or the policies reads time, ids or randomness, or sets a timer, but through the seams', () => {
    const offenders: string[] = []
    for (const folder of CHECKED) {
      for (const path of files(join(src, folder))) {
        const file = relative(src, path).split('\\').join('/')
        for (const name of directReads(readFileSync(path, 'utf8')))
          offenders.push(`${file}: ${name}`)
      }
    }
    expect(offenders).toEqual([])
  })
})
