import type { Dir, Dirent, Stats } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { loadSkills, MAX_SKILL_DIR_ENTRIES, readSkillResource } from '../../src/skills'
import { scratch, skillFile, within, writeTree } from './support'

/**
 * What a `stat` saw is not what an open gets: a folder the model can write to
 * may swap a checked file for a FIFO in between. Here `stat` lies about the
 * paths in `swapped` (it calls a FIFO a small regular file), which is what such
 * a swap looks like to the loader. Without a check on the opened file, opening
 * the FIFO blocks until a writer comes: for ever, on a thread of libuv's pool,
 * where no abort reaches it. The same mock counts the directory entries read.
 */
const fsState = vi.hoisted(() => ({ swapped: new Set<string>(), entriesRead: 0 }))

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>()
  const stat = (async (path: string, options?: object) => {
    const info = await actual.stat(path, options) as Stats
    if (!fsState.swapped.has(String(path)))
      return info
    return Object.assign(Object.create(Object.getPrototypeOf(info) as object) as Stats, info, { size: 10, isFile: () => true, isFIFO: () => false })
  }) as typeof actual.stat
  const opendir = (async (path: string, options?: object) => {
    const dir = await actual.opendir(path, options)
    const read = dir.read.bind(dir) as () => Promise<Dirent | null>
    return Object.assign(dir, {
      read: async () => {
        const entry = await read()
        if (entry !== null)
          fsState.entriesRead++
        return entry
      },
    }) as Dir
  }) as typeof actual.opendir
  const readdir = (async (path: string, options?: object) => {
    const entries = await actual.readdir(path, options as undefined)
    fsState.entriesRead += entries.length
    return entries
  }) as typeof actual.readdir
  return { ...actual, default: { ...actual, stat, opendir, readdir }, stat, opendir, readdir }
})

const cleanups: (() => void)[] = []
beforeEach(() => {
  fsState.swapped.clear()
  fsState.entriesRead = 0
})
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})
function tmp(): string {
  const { dir, cleanup } = scratch('zidane-swapped-')
  cleanups.push(cleanup)
  return dir
}

describe('a file swapped for a FIFO between the check and the read', () => {
  it('a SKILL.md: the skill is left out at once, the others load', async () => {
    const root = tmp()
    writeTree(root, { 'fine/SKILL.md': skillFile('name: fine\ndescription: Fine.'), 'pipe/notes.md': 'x' })
    const fifo = join(root, 'pipe', 'SKILL.md')
    execFileSync('mkfifo', [fifo])
    fsState.swapped.add(fifo)
    const { skills, skipped } = await within(5000, loadSkills([root]))
    expect(skills.map(skill => skill.name)).toEqual(['fine'])
    expect(skipped).toEqual([{ path: fifo, reason: 'SKILL.md is not a regular file (a FIFO, a device, a socket or a directory); not read' }])
  })

  it('a resource read by skills_read: an error, at once', async () => {
    const root = tmp()
    const dir = join(root, 'res')
    writeTree(dir, { 'SKILL.md': skillFile('name: res\ndescription: Resources.') })
    const { skills } = await loadSkills([dir])
    const fifo = join(dir, 'pipe.md')
    execFileSync('mkfifo', [fifo])
    fsState.swapped.add(fifo)
    expect(await within(5000, readSkillResource(skills[0], 'pipe.md'))).toEqual({ error: '"pipe.md" is not a regular file' })
  })
})

describe('the resource listing', () => {
  it('reads at most MAX_SKILL_DIR_ENTRIES directory entries in all, however many the skill holds', async () => {
    const dir = join(tmp(), 'wide')
    writeTree(dir, { 'SKILL.md': skillFile('name: wide\ndescription: Wide.'), 'more/a.md': 'a' })
    for (let i = 0; i < MAX_SKILL_DIR_ENTRIES + 2000; i++)
      writeFileSync(join(dir, `f${i}`), '')
    const { skills } = await loadSkills([dir])
    expect(skills[0].resources).toHaveLength(500)
    // The entries of the skill's root, and the one read past the limit to know there are more.
    expect(fsState.entriesRead).toBeLessThanOrEqual(MAX_SKILL_DIR_ENTRIES + 1)
  })
})
