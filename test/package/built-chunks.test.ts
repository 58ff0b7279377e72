import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ensureBuilt, root } from '../docs/consumer-project'

// The build regroups tsup's chunks (scripts/rechunk-dist.ts): the root entry
// loads a few files, not dozens, and the light entries do not load what the
// root does. Read from the built files' static imports.

// Rollup writes each static import or re-export on a line of its own, at its start.
const STATIC_IMPORT = /^(?:import|export)[^'"\n]*['"](\.[^'"]+)['"]/gm

/** The built files `entry` loads before it runs (it included), relative to `dist/`. */
function loadedAtOnce(entry: string): string[] {
  const dist = join(root, 'dist')
  const seen = new Set<string>()
  const stack = [join(dist, entry)]
  while (stack.length > 0) {
    const file = stack.pop()!
    if (seen.has(file))
      continue
    seen.add(file)
    for (const match of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT))
      stack.push(resolve(dirname(file), match[1]))
  }
  return Array.from(seen, file => relative(dist, file)).sort()
}

describe('the built chunks', () => {
  ensureBuilt()

  it('the root entry loads three files at once: itself, base and core', () => {
    const files = loadedAtOnce('index.js')
    expect(files).toHaveLength(3)
    expect(files.filter(file => file.startsWith('core-') || file.startsWith('base-'))).toHaveLength(2)
  })

  it('the light entries load base, never core', () => {
    for (const entry of ['types.js', 'errors.js']) {
      const files = loadedAtOnce(entry)
      expect(files.some(file => file.startsWith('core-')), entry).toBe(false)
      expect(files.length, entry).toBeLessThanOrEqual(2)
    }
  })

  it('a provider entry loads the root\'s core: shared modules (error classes, caches) exist once', () => {
    const root = loadedAtOnce('index.js')
    const anthropic = loadedAtOnce('providers/anthropic.js')
    const core = root.find(file => file.startsWith('core-'))!
    expect(anthropic).toContain(core)
  })
})
