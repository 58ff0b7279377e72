import type { Dirent, Stats } from 'node:fs'
import type { LoadedSkills, SkillConfig, SkillSkip, SkillSource } from './types'
import { constants } from 'node:fs'
import { open, opendir, realpath, stat } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import { mergeObjects } from '../core/merge-objects'
import { SkillValidationError } from '../errors'
import { hasUnsafeCharacter, parseSkill, SKILL_FILE_MAX_BYTES, SKILL_RESOURCE_PATH_MAX_CHARS } from './validate'

/** Most skills read from one folder of skills; the rest are reported, not read. */
export const MAX_SKILLS_PER_FOLDER = 1000
/** Most resource files listed per skill. */
export const MAX_SKILL_RESOURCES = 500
/** How many directory levels below the skill the resource listing goes. */
export const MAX_SKILL_RESOURCE_DEPTH = 8
/**
 * Most directory entries read from one folder of skills, and most entries the
 * resource listing of one skill reads in all: a folder of a million entries,
 * or a skill of a hundred thousand empty directories, costs no more than this.
 */
export const MAX_SKILL_DIR_ENTRIES = 10_000

/** The reason of a path that holds no skill at all (a plugin's optional `skills/` folder may be empty). */
export const NO_SKILL_HERE = 'holds no SKILL.md, and no subdirectory holds one'

/** What `readBounded` returns for a path that is not a regular file. */
export const NOT_REGULAR: unique symbol = Symbol('not a regular file')

/**
 * What `readBounded` returns when the file it opened is not a file inside the
 * root it was given: a folder or the file itself was swapped for a link
 * leading out between the caller's check and the open.
 */
export const LEFT_ROOT: unique symbol = Symbol('left its root')

/** Opened without blocking: a FIFO would block the open until a writer came, with no way to abort it. */
const READ_NONBLOCK = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

/**
 * Load skills from directories: each path is a skill directory (it holds
 * `SKILL.md`) or a folder whose immediate subdirectories are skills. Every
 * skill that breaks a rule, every path that holds none and every second
 * skill of a name already loaded is in `skipped` with its reason; nothing is
 * dropped silently. Skills come back sorted by name, with their resource
 * files listed (never read: `skills_read` reads one on demand).
 */
export async function loadSkills(paths: readonly string[]): Promise<LoadedSkills> {
  return loadSkillSources(paths)
}

/** `loadSkills` over sources that may also be inline skills (already checked), which win over a disk skill of the same name. */
export async function loadSkillSources(sources: readonly SkillSource[]): Promise<LoadedSkills> {
  const byName = new Map<string, { skill: SkillConfig, from: string }>()
  const skipped: SkillSkip[] = []
  for (const source of sources) {
    if (typeof source !== 'string')
      byName.set(source.name, { skill: source, from: 'an inline skill' })
  }
  for (const source of sources) {
    if (typeof source !== 'string')
      continue
    for (const found of await skillsAt(source)) {
      if ('reason' in found) {
        skipped.push(found)
        continue
      }
      const earlier = byName.get(found.name)
      if (earlier) {
        skipped.push({ path: found.dir!, name: found.name, reason: `a skill named "${found.name}" was already loaded from ${earlier.from}` })
        continue
      }
      byName.set(found.name, { skill: found, from: found.dir! })
    }
  }
  const skills = Array.from(byName.values(), entry => entry.skill).sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  return { skills, skipped }
}

/** The skill at `path`, or the skills of the folder at `path`, each loaded or skipped with its reason. */
async function skillsAt(path: string): Promise<(SkillConfig | SkillSkip)[]> {
  const dir = resolve(path)
  let info
  try {
    info = await stat(dir)
  }
  catch {
    return [{ path: dir, reason: 'no such file or directory' }]
  }
  if (!info.isDirectory())
    return [{ path: dir, reason: 'not a directory (give a skill directory or a folder of them)' }]
  const own = await kindOf(join(dir, 'SKILL.md'))
  if (own === 'file')
    return [await loadSkillDir(dir)]
  if (own === 'other')
    return [{ path: join(dir, 'SKILL.md'), reason: 'SKILL.md is not a regular file (a FIFO, a device, a socket or a directory); not read' }]
  let listing: DirListing
  try {
    listing = await readDirCapped(dir, MAX_SKILL_DIR_ENTRIES)
  }
  catch (error) {
    return [{ path: dir, reason: `cannot list the folder: ${(error as Error).message}` }]
  }
  const out: (SkillConfig | SkillSkip)[] = []
  if (listing.more)
    out.push({ path: dir, reason: `the folder has more than ${MAX_SKILL_DIR_ENTRIES} entries; only the first ${MAX_SKILL_DIR_ENTRIES} read were looked at` })
  const candidates = listing.entries.filter(entry => entry.isDirectory() || entry.isSymbolicLink())
  // A name with control characters is no skill's name, and would reach a terminal raw in the skip's path.
  const unsafe = candidates.filter(entry => hasUnsafeCharacter(entry.name)).length
  if (unsafe > 0)
    out.push({ path: dir, reason: `${unsafe} subdirector${unsafe === 1 ? 'y has a name' : 'ies have names'} with control characters or bytes that are not UTF-8, which no skill can have; not read` })
  const children = candidates.map(entry => entry.name).filter(name => !hasUnsafeCharacter(name)).sort()
  let found = 0
  for (const [index, name] of children.entries()) {
    const child = join(dir, name)
    const kind = await kindOf(join(child, 'SKILL.md'))
    if (kind === 'missing')
      continue
    if (kind === 'other') {
      out.push({ path: join(child, 'SKILL.md'), reason: 'SKILL.md is not a regular file (a FIFO, a device, a socket or a directory); not read' })
      continue
    }
    if (found === MAX_SKILLS_PER_FOLDER) {
      // One report for the rest, not one per skill: a folder of 100,000 skills must not flood the hooks and warnings.
      out.push({ path: dir, reason: `the folder holds more than ${MAX_SKILLS_PER_FOLDER} skills; ${children.length - index} subdirectories from ${JSON.stringify(name)} on (in name order) were not read` })
      break
    }
    found++
    out.push(await loadSkillDir(child))
  }
  if (found === 0 && out.length === 0)
    out.push({ path: dir, reason: NO_SKILL_HERE })
  return out
}

/** One skill directory: its `SKILL.md` parsed and checked, its files listed. */
async function loadSkillDir(dir: string): Promise<SkillConfig | SkillSkip> {
  const file = join(dir, 'SKILL.md')
  try {
    const root = await realpath(dir)
    const target = await realpath(file)
    if (!inside(root, target))
      return { path: file, reason: 'SKILL.md is a link that leaves the skill directory' }
    const text = await readBounded(target, SKILL_FILE_MAX_BYTES, root)
    if (text === LEFT_ROOT)
      return { path: file, reason: 'SKILL.md was swapped for a link that leaves the skill directory while it was opened; not read' }
    if (text === undefined)
      return { path: file, reason: `SKILL.md is larger than ${SKILL_FILE_MAX_BYTES} bytes` }
    if (text === NOT_REGULAR)
      return { path: file, reason: 'SKILL.md is not a regular file (a FIFO, a device, a socket or a directory); not read' }
    const skill = parseSkill(text, dir)
    const listing = await listResources(root)
    return mergeObjects(skill, { resources: listing.map(path => ({ path })) })
  }
  catch (error) {
    if (error instanceof SkillValidationError)
      return { path: dir, ...(error.skill === undefined ? {} : { name: error.skill }), reason: error.problems.join('; ') }
    return { path: dir, reason: `cannot read the skill: ${(error as Error).message}` }
  }
}

/**
 * The skill's files, relative and sorted, `SKILL.md` and dot-files aside.
 * A link is listed only when it resolves to a file inside the skill; the
 * listing stops at `MAX_SKILL_RESOURCES` files, `MAX_SKILL_RESOURCE_DEPTH`
 * levels and `MAX_SKILL_DIR_ENTRIES` entries read in all. A name the model
 * could not read back by its path is left out: one with control characters
 * or bytes that are not UTF-8, or a `\` (read as a separator). A directory
 * that cannot be listed is passed over.
 */
async function listResources(root: string): Promise<string[]> {
  const files: string[] = []
  let budget = MAX_SKILL_DIR_ENTRIES
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_SKILL_RESOURCE_DEPTH || budget <= 0)
      return
    let listing: DirListing
    try {
      listing = await readDirCapped(dir, budget)
    }
    catch {
      return
    }
    budget -= listing.entries.length
    if (listing.more)
      budget = 0
    const entries = listing.entries.sort((a, b) => a.name < b.name ? -1 : 1)
    for (const entry of entries) {
      if (files.length >= MAX_SKILL_RESOURCES)
        return
      if (entry.name.startsWith('.') || hasUnsafeCharacter(entry.name) || entry.name.includes('\\'))
        continue
      const full = join(dir, entry.name)
      const rel = relative(root, full).split(sep).join('/')
      if (rel === 'SKILL.md' || rel.length > SKILL_RESOURCE_PATH_MAX_CHARS)
        continue
      if (entry.isDirectory()) {
        await walk(full, depth + 1)
      }
      else if (entry.isFile()) {
        files.push(rel)
      }
      else if (entry.isSymbolicLink()) {
        const target = await realpath(full).catch(() => undefined)
        if (target !== undefined && inside(root, target) && await kindOf(target) === 'file')
          files.push(rel)
      }
    }
  }
  await walk(root, 0)
  return files.sort()
}

interface DirListing {
  readonly entries: Dirent[]
  /** The directory holds more entries than were read. */
  readonly more: boolean
}

/** At most `max` entries of a directory, read as a stream: a directory of millions of entries is never read whole. */
async function readDirCapped(dir: string, max: number): Promise<DirListing> {
  const handle = await opendir(dir, { bufferSize: 128 })
  const entries: Dirent[] = []
  try {
    for (;;) {
      const entry = await handle.read()
      if (entry === null)
        return { entries, more: false }
      if (entries.length >= max)
        return { entries, more: true }
      entries.push(entry)
    }
  }
  finally {
    await handle.close().catch(() => {})
  }
}

/** Whether `target` is `root` or below it (both real paths). */
export function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(sep) ? root : root + sep)
}

/** What is at `path`, following links: a regular file, something else (a directory, a FIFO, a device, a socket), or nothing (missing, a dangling link, a loop). */
async function kindOf(path: string): Promise<'file' | 'other' | 'missing'> {
  try {
    return (await stat(path)).isFile() ? 'file' : 'other'
  }
  catch {
    return 'missing'
  }
}

/**
 * A file's text when it holds at most `max` bytes, `undefined` when it holds
 * more (read no further than the cap), `NOT_REGULAR` when it is no regular
 * file. The open does not block (`O_NONBLOCK`, which changes nothing for a
 * regular file) and the check is on the opened file, so a FIFO or a device
 * put in place after a `stat` still never blocks the read or fills memory.
 *
 * With `root` (a real path), the opened file must also be one inside it, or
 * the answer is `LEFT_ROOT` and nothing is read. A caller checks the path
 * before the open, but a folder the model can write to may be swapped for a
 * link leading out in between; so once the file is open, its path is resolved
 * again, and the file found there must be inside `root` and be the very file
 * open (same device and inode). A swap back after the open cannot pass: the
 * open file is the one outside.
 */
export async function readBounded(path: string, max: number, root?: string): Promise<string | undefined | typeof NOT_REGULAR | typeof LEFT_ROOT> {
  const handle = await open(path, READ_NONBLOCK)
  try {
    const info = await handle.stat()
    if (root !== undefined && !await isOpenedInside(path, root, info))
      return LEFT_ROOT
    if (!info.isFile())
      return NOT_REGULAR
    if (info.size > max)
      return undefined
    const buffer = Buffer.alloc(max + 1)
    let length = 0
    while (length <= max) {
      const { bytesRead } = await handle.read(buffer, length, max + 1 - length, length)
      if (bytesRead === 0)
        break
      length += bytesRead
    }
    return length > max ? undefined : buffer.subarray(0, length).toString('utf8')
  }
  finally {
    await handle.close()
  }
}

/** Whether `path` now resolves inside `root` to the file `opened` describes. */
async function isOpenedInside(path: string, root: string, opened: Stats): Promise<boolean> {
  try {
    const now = await realpath(path)
    if (!inside(root, now))
      return false
    const named = await stat(now)
    return named.dev === opened.dev && named.ino === opened.ino
  }
  catch {
    return false
  }
}
