import type { Stats } from 'node:fs'
import type { SkillConfig } from './types'
import { realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { inside, LEFT_ROOT, NOT_REGULAR, readBounded } from './load'
import { resourcePathProblem } from './validate'

/** Largest resource `skills_read` returns, in bytes; a bigger file is refused with its size (run or open it by path instead). */
export const SKILL_RESOURCE_MAX_BYTES = 256 * 1024

/** What reading a resource gave: its text, or why it was refused (the model reads `error`). */
export type SkillResourceRead = { readonly text: string } | { readonly error: string }

/**
 * Read one file of a skill, confined to it: absolute paths, `..`, links that
 * resolve outside the skill's directory, directories and files over
 * `SKILL_RESOURCE_MAX_BYTES` are refused; an inline skill's resources are its
 * `content`. The check is on the resolved path, so a link inside the skill
 * that points out of it is refused however it is spelled.
 */
export async function readSkillResource(skill: SkillConfig, path: string): Promise<SkillResourceRead> {
  const problem = resourcePathProblem(path)
  if (problem)
    return { error: problem }
  const normalized = path.replaceAll('\\', '/')
  const inline = skill.resources?.find(resource => resource.path === normalized && resource.content !== undefined)
  if (inline)
    return { text: inline.content! }
  if (skill.dir === undefined)
    return { error: `skill "${skill.name}" has no file "${normalized}"` }
  let root: string
  let target: string
  let info: Stats
  try {
    root = await realpath(skill.dir)
    target = await realpath(join(root, normalized))
    info = await stat(target)
  }
  catch {
    return { error: `skill "${skill.name}" has no file "${normalized}"` }
  }
  if (!inside(root, target))
    return { error: `"${normalized}" is a link that leaves the skill; refused` }
  if (info.isDirectory())
    return { error: `"${normalized}" is a directory; read one of its files (skills_use lists them)` }
  if (!info.isFile())
    return { error: `"${normalized}" is not a regular file` }
  if (info.size > SKILL_RESOURCE_MAX_BYTES)
    return { error: `"${normalized}" has ${info.size} bytes, more than the ${SKILL_RESOURCE_MAX_BYTES} skills_read returns; use it by its path, ${target}` }
  let text: Awaited<ReturnType<typeof readBounded>>
  try {
    text = await readBounded(target, SKILL_RESOURCE_MAX_BYTES, root)
  }
  catch (error) {
    return { error: `"${normalized}" could not be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }
  }
  // The file was checked by path; the read checks the file it opened, so one swapped for a FIFO or a device in between is refused too.
  if (text === LEFT_ROOT)
    return { error: `"${normalized}" was swapped for a link that leaves the skill while it was opened; refused` }
  if (text === NOT_REGULAR)
    return { error: `"${normalized}" is not a regular file` }
  if (text === undefined)
    return { error: `"${normalized}" grew past ${SKILL_RESOURCE_MAX_BYTES} bytes while it was read` }
  if (text.includes('\0'))
    return { error: `"${normalized}" is a binary file (${info.size} bytes); use it by its path, ${target}` }
  return { text }
}
