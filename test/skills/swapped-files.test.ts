import type { Dir, Dirent, Stats } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AgentPluginError, loadAgentPlugin, PLUGIN_SCHEMA_1_0 } from '../../src/chat'
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
const fsState = vi.hoisted(() => ({ swapped: new Set<string>(), entriesRead: 0, beforeOpen: new Map<string, () => void>() }))

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
  // A swap made right before a path is opened: after every check the caller made on it.
  const open = (async (path: string, ...rest: unknown[]) => {
    const swap = fsState.beforeOpen.get(String(path))
    fsState.beforeOpen.delete(String(path))
    swap?.()
    return (actual.open as (...args: unknown[]) => ReturnType<typeof actual.open>)(path, ...rest)
  }) as typeof actual.open
  return { ...actual, default: { ...actual, stat, opendir, readdir, open }, stat, opendir, readdir, open }
})

const cleanups: (() => void)[] = []
beforeEach(() => {
  fsState.swapped.clear()
  fsState.beforeOpen.clear()
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

/**
 * A folder swapped for a link leading out of the skill or plugin between the
 * check on its path and the open (here: right before the open). The checks
 * resolved the path inside; without a check on the opened file, the read
 * returned the outside file's text.
 */
describe('a folder or file swapped for a link leading out, between the check and the open', () => {
  /** Move `path` aside and put a link to `target` in its place. */
  function swapForLink(path: string, target: string): () => void {
    return () => {
      renameSync(path, `${path}.moved`)
      symlinkSync(target, path)
    }
  }

  it('a SKILL.md: the skill is left out, and nothing of the outside file is loaded', async () => {
    const root = realpathSync(tmp())
    writeTree(root, {
      'skills/fine/SKILL.md': skillFile('name: fine\ndescription: Fine.'),
      'skills/evil/SKILL.md': skillFile('name: evil\ndescription: Inside.'),
      'outside/SKILL.md': skillFile('name: evil\ndescription: From outside the skill.'),
    })
    const dir = join(root, 'skills', 'evil')
    fsState.beforeOpen.set(join(dir, 'SKILL.md'), swapForLink(dir, join(root, 'outside')))
    const { skills, skipped } = await loadSkills([join(root, 'skills')])
    expect(skills.map(skill => skill.name)).toEqual(['fine'])
    expect(skipped).toEqual([{ path: join(dir, 'SKILL.md'), reason: 'SKILL.md was swapped for a link that leaves the skill directory while it was opened; not read' }])
  })

  it('a resource read by skills_read: an error, and none of the outside file\'s text', async () => {
    const root = realpathSync(tmp())
    const dir = join(root, 'res')
    writeTree(root, { 'res/SKILL.md': skillFile('name: res\ndescription: Resources.'), 'res/notes/a.md': 'inside', 'outside/a.md': 'SECRET' })
    const { skills } = await loadSkills([dir])
    expect(await readSkillResource(skills[0], 'notes/a.md')).toEqual({ text: 'inside' })
    fsState.beforeOpen.set(join(dir, 'notes', 'a.md'), swapForLink(join(dir, 'notes'), join(root, 'outside')))
    expect(await readSkillResource(skills[0], 'notes/a.md')).toEqual({ error: '"notes/a.md" was swapped for a link that leaves the skill while it was opened; refused' })
    // Read again, the link is seen before any open.
    expect(await readSkillResource(skills[0], 'notes/a.md')).toEqual({ error: '"notes/a.md" is a link that leaves the skill; refused' })
  })

  it('a plugin.json: the plugin is refused, and the outside manifest is never used', async () => {
    const root = realpathSync(tmp())
    const dir = join(root, 'plugin')
    writeTree(root, {
      'plugin/plugin.json': JSON.stringify({ $schema: PLUGIN_SCHEMA_1_0, name: 'mine' }),
      'elsewhere/plugin.json': JSON.stringify({ $schema: PLUGIN_SCHEMA_1_0, name: 'someone-else' }),
    })
    fsState.beforeOpen.set(join(dir, 'plugin.json'), swapForLink(join(dir, 'plugin.json'), join(root, 'elsewhere', 'plugin.json')))
    await expect(loadAgentPlugin(dir, { dataDir: join(root, 'data') })).rejects.toThrow(new AgentPluginError(dir, 'plugin.json: swapped for a link that leaves the plugin root while it was opened; not read'))
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
