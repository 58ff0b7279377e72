import type { Dirent } from 'node:fs'
import type { LoadedSkills, SkillConfig, SkillSkip, SkillSource } from './types'
import { open, readdir, realpath, stat } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import { mergeObjects } from '../core/merge-objects'
import { SkillValidationError } from '../errors'
import { parseSkill, SKILL_FILE_MAX_BYTES } from './validate'

/** Most skills read from one folder of skills; the rest are reported, not read. */
export const MAX_SKILLS_PER_FOLDER = 1000
/** Most resource files listed per skill. */
export const MAX_SKILL_RESOURCES = 500
/** How many directory levels below the skill the resource listing goes. */
export const MAX_SKILL_RESOURCE_DEPTH = 8

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
  if (await isFile(join(dir, 'SKILL.md')))
    return [await loadSkillDir(dir)]
  let entries: Dirent[]
  try {
    entries = await readdir(dir, { withFileTypes: true })
  }
  catch (error) {
    return [{ path: dir, reason: `cannot list the folder: ${(error as Error).message}` }]
  }
  const children = entries.filter(entry => entry.isDirectory() || entry.isSymbolicLink()).map(entry => entry.name).sort()
  const out: (SkillConfig | SkillSkip)[] = []
  let found = 0
  for (const name of children) {
    const child = join(dir, name)
    if (!await isFile(join(child, 'SKILL.md')))
      continue
    if (++found > MAX_SKILLS_PER_FOLDER) {
      out.push({ path: child, reason: `the folder holds more than ${MAX_SKILLS_PER_FOLDER} skills; this one was not read` })
      continue
    }
    out.push(await loadSkillDir(child))
  }
  if (found === 0)
    out.push({ path: dir, reason: 'holds no SKILL.md, and no subdirectory holds one' })
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
    const text = await readBounded(target, SKILL_FILE_MAX_BYTES)
    if (text === undefined)
      return { path: file, reason: `SKILL.md is larger than ${SKILL_FILE_MAX_BYTES} bytes` }
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
 * listing stops at `MAX_SKILL_RESOURCES` files and `MAX_SKILL_RESOURCE_DEPTH`.
 */
async function listResources(root: string): Promise<string[]> {
  const files: string[] = []
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_SKILL_RESOURCE_DEPTH)
      return
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name < b.name ? -1 : 1)
    for (const entry of entries) {
      if (files.length >= MAX_SKILL_RESOURCES)
        return
      if (entry.name.startsWith('.'))
        continue
      const full = join(dir, entry.name)
      const rel = relative(root, full).split(sep).join('/')
      if (rel === 'SKILL.md')
        continue
      if (entry.isDirectory()) {
        await walk(full, depth + 1)
      }
      else if (entry.isFile()) {
        files.push(rel)
      }
      else if (entry.isSymbolicLink()) {
        const target = await realpath(full).catch(() => undefined)
        if (target !== undefined && inside(root, target) && await isFile(target))
          files.push(rel)
      }
    }
  }
  await walk(root, 0)
  return files.sort()
}

/** Whether `target` is `root` or below it (both real paths). */
export function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(sep) ? root : root + sep)
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile()
  }
  catch {
    return false
  }
}

/** A file's text when it holds at most `max` bytes, else `undefined` (read no further than the cap). */
export async function readBounded(path: string, max: number): Promise<string | undefined> {
  const handle = await open(path, 'r')
  try {
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
