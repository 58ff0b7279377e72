import type { FrontmatterValue } from './frontmatter'
import type { SkillConfig, SkillResource } from './types'
import { mergeObjects } from '../core/merge-objects'
import { pushAll } from '../core/push-all'
import { SkillValidationError } from '../errors'
import { utf8ByteLength } from '../text/utf8-length'
import { FrontmatterError, parseFrontmatter, splitFrontmatter } from './frontmatter'

const DRIVE = /^[a-z]:/i
const SEPARATOR = /[/\\]/
const WHITESPACE = /\s/
// eslint-disable-next-line no-control-regex
const TEXT_CONTROL = /[\x00-\x08\x0B-\x1F\x7F-\x9F\u2028\u2029]/
// eslint-disable-next-line no-control-regex
const LINE_CONTROL = /[\x00-\x1F\x7F-\x9F\u2028\u2029]/
// eslint-disable-next-line no-control-regex
const NAME_UNSAFE = /[\x00-\x1F\x7F-\x9F\u2028\u2029\uFFFD]/
const QUOTE_UNSAFE = /[\x7F-\x9F\u2028\u2029]/g

/** Longest skill name (Agent Skills specification). */
export const SKILL_NAME_MAX_CHARS = 64
/** Longest skill description (Agent Skills specification). */
export const SKILL_DESCRIPTION_MAX_CHARS = 1024
/** Longest `compatibility` text (Agent Skills specification). */
export const SKILL_COMPATIBILITY_MAX_CHARS = 500
/** Longest resource path accepted. */
export const SKILL_RESOURCE_PATH_MAX_CHARS = 4096
/** Largest `SKILL.md` read, in bytes: a bigger one is refused before it is parsed. An inline skill's body is held to it too. */
export const SKILL_FILE_MAX_BYTES = 1024 * 1024
/** Most `allowed-tools` entries a skill may declare. */
export const SKILL_ALLOWED_TOOLS_MAX = 100
/** Longest `allowed-tools` entry, in characters. */
export const SKILL_ALLOWED_TOOL_MAX_CHARS = 500

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** Why a skill name breaks the rules, or `undefined` when it is valid. */
export function skillNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '')
    return '`name` is required (a non-empty string)'
  if (name.length > SKILL_NAME_MAX_CHARS)
    return `\`name\` has ${name.length} characters; at most ${SKILL_NAME_MAX_CHARS}`
  if (!NAME.test(name))
    return `\`name\` ${quote(name)} must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen`
  return undefined
}

/**
 * Whether a name (a file or folder name, a resource path) holds a character
 * that has no place in one and could carry a line or a terminal escape to the
 * model or a log: a control character (tab and line feed included), a line or
 * paragraph separator, U+FFFD (a file name whose bytes are not UTF-8, which
 * could not be opened again by its decoded name), or a lone surrogate.
 */
export function hasUnsafeCharacter(name: string): boolean {
  return NAME_UNSAFE.test(name) || !isWellFormed(name)
}

/**
 * Where a text that reaches the model (a description, an `allowed-tools`
 * entry) holds a character that breaks a line or the wire: a control
 * character other than tab and line feed (`oneLine`: any), a line or
 * paragraph separator, or a lone surrogate. `undefined` when it holds none.
 */
function controlProblem(text: string, oneLine = false): string | undefined {
  const at = text.search(oneLine ? LINE_CONTROL : TEXT_CONTROL)
  if (at >= 0)
    return `holds the control character U+${text.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')} at index ${at}`
  if (!isWellFormed(text))
    return 'holds a lone surrogate (half of a UTF-16 pair)'
  return undefined
}

/** Node 20 has it; the compiler's ES2023 library does not declare it yet. */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed: () => boolean }).isWellFormed()
}

/** A text quoted for a message: JSON's escapes, plus DEL, the C1 controls and the line separators, so no terminal reads it raw. */
function quote(text: string): string {
  return JSON.stringify(text).replace(QUOTE_UNSAFE, char => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** The name a report may carry: the frontmatter's, when it is short text without control characters. */
function reportableName(name: unknown): string | undefined {
  return typeof name === 'string' && name !== '' && name.length <= SKILL_NAME_MAX_CHARS && !hasUnsafeCharacter(name) ? name : undefined
}

/**
 * Parse a `SKILL.md`: frontmatter and body, checked against the Agent Skills
 * rules. With `dir`, the name must equal the directory's last segment and the
 * skill records it. Throws `SkillValidationError` listing every rule broken.
 * Fields the specification does not define (some clients add their own) are
 * ignored, so skills written for those clients load unchanged.
 */
export function parseSkill(text: string, dir?: string): SkillConfig {
  const where = dir === undefined ? {} : { path: dir }
  if (text.length > SKILL_FILE_MAX_BYTES)
    throw new SkillValidationError([`SKILL.md is larger than ${SKILL_FILE_MAX_BYTES} bytes`], where)
  let fields: Record<string, FrontmatterValue>
  let body: string
  try {
    const split = splitFrontmatter(text)
    fields = parseFrontmatter(split)
    body = split.body
  }
  catch (error) {
    if (error instanceof FrontmatterError)
      throw new SkillValidationError([`frontmatter ${error.message}`], where)
    throw error
  }
  const problems: string[] = []
  const name = fields.name
  const skill: SkillConfig = {
    name: typeof name === 'string' ? name : '',
    description: typeof fields.description === 'string' ? fields.description.trim() : '',
    body,
    ...optionalText(fields, 'license', problems),
    ...optionalText(fields, 'compatibility', problems),
    ...metadataOf(fields.metadata, problems),
    ...allowedToolsOf(fields['allowed-tools'], problems),
    ...(dir === undefined ? {} : { dir }),
  }
  if (fields.description !== undefined && fields.description !== null && typeof fields.description !== 'string')
    problems.push('`description` must be text')
  pushAll(problems, skillProblems(skill))
  if (dir !== undefined && typeof name === 'string' && name !== lastSegment(dir))
    problems.push(`\`name\` ${quote(name.length > SKILL_NAME_MAX_CHARS ? `${name.slice(0, SKILL_NAME_MAX_CHARS)}…` : name)} must equal its directory's name ${quote(lastSegment(dir))}`)
  if (problems.length > 0) {
    const reported = reportableName(name)
    throw new SkillValidationError(problems, mergeObjects(where, (reported === undefined ? {} : { skill: reported })))
  }
  return skill
}

/** Every rule a skill breaks (empty when it is valid): what `createAgent` checks of an inline skill. */
export function skillProblems(skill: SkillConfig): string[] {
  const problems: string[] = []
  if (typeof skill !== 'object' || skill === null)
    return ['a skill must be an object or a path']
  const nameProblem = skillNameProblem(skill.name)
  if (nameProblem)
    problems.push(nameProblem)
  const description = skill.description
  if (typeof description !== 'string' || description.trim() === '')
    problems.push('`description` is required (1–1024 characters saying what the skill does and when to use it)')
  else if (description.length > SKILL_DESCRIPTION_MAX_CHARS)
    problems.push(`\`description\` has ${description.length} characters; at most ${SKILL_DESCRIPTION_MAX_CHARS}`)
  else if (controlProblem(description) !== undefined)
    problems.push(`\`description\` ${controlProblem(description)}; it is shown to the model on one line`)
  if (typeof skill.body !== 'string')
    problems.push('`body` must be text')
  else
    pushAll(problems, bodyProblems(skill.body))
  if (skill.license !== undefined && typeof skill.license !== 'string')
    problems.push('`license` must be text')
  if (skill.compatibility !== undefined) {
    if (typeof skill.compatibility !== 'string' || skill.compatibility.length === 0)
      problems.push('`compatibility` must be non-empty text')
    else if (skill.compatibility.length > SKILL_COMPATIBILITY_MAX_CHARS)
      problems.push(`\`compatibility\` has ${skill.compatibility.length} characters; at most ${SKILL_COMPATIBILITY_MAX_CHARS}`)
  }
  if (skill.metadata !== undefined && (typeof skill.metadata !== 'object' || skill.metadata === null || Object.values(skill.metadata).some(value => typeof value !== 'string')))
    problems.push('`metadata` must map keys to text')
  if (skill.allowedTools !== undefined && (!Array.isArray(skill.allowedTools) || skill.allowedTools.some(tool => typeof tool !== 'string' || tool.trim() === '')))
    problems.push('`allowedTools` must be a list of tool names')
  else if (skill.allowedTools !== undefined)
    pushAll(problems, allowedToolsProblems(skill.allowedTools))
  for (const resource of skill.resources ?? []) {
    const problem = resourcePathProblem(resource?.path)
    if (problem)
      problems.push(`resource ${JSON.stringify(resource?.path)}: ${problem}`)
    else if (resource.content !== undefined && typeof resource.content !== 'string')
      problems.push(`resource "${resource.path}": \`content\` must be text`)
  }
  if (skill.resources?.some((resource: SkillResource) => resource.content === undefined) && skill.dir === undefined)
    problems.push('a resource without `content` needs the skill\'s `dir` to be read from')
  return problems
}

/** A body must be text the wire can carry, no bigger than a `SKILL.md` may be. */
function bodyProblems(body: string): string[] {
  if (body.length > SKILL_FILE_MAX_BYTES && utf8ByteLength(body) > SKILL_FILE_MAX_BYTES)
    return [`\`body\` is larger than ${SKILL_FILE_MAX_BYTES} bytes`]
  if (body.includes('\0'))
    return ['`body` holds a NUL character; a skill\'s instructions are text']
  if (!isWellFormed(body))
    return ['`body` holds a lone surrogate (half of a UTF-16 pair)']
  return []
}

/** The entries are shown to the model and checked on every call while the skill is active: bounded in number and length, one line each. */
function allowedToolsProblems(entries: readonly string[]): string[] {
  if (entries.length > SKILL_ALLOWED_TOOLS_MAX)
    return [`\`allowed-tools\` has ${entries.length} entries; at most ${SKILL_ALLOWED_TOOLS_MAX}`]
  for (const entry of entries) {
    if (entry.length > SKILL_ALLOWED_TOOL_MAX_CHARS)
      return [`an \`allowed-tools\` entry has ${entry.length} characters; at most ${SKILL_ALLOWED_TOOL_MAX_CHARS}`]
    const problem = controlProblem(entry, true)
    if (problem !== undefined)
      return [`an \`allowed-tools\` entry ${problem}`]
  }
  return []
}

/**
 * Why a resource path is refused, or `undefined`: it must be relative,
 * `/`-separated, without `.` or `..` segments, empty segments or NUL.
 */
export function resourcePathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || path === '')
    return 'a path is required'
  if (path.length > SKILL_RESOURCE_PATH_MAX_CHARS)
    return `a path is at most ${SKILL_RESOURCE_PATH_MAX_CHARS} characters`
  if (path.includes('\0'))
    return 'a path may not contain NUL'
  if (hasUnsafeCharacter(path))
    return 'a path may not contain control characters, line separators, U+FFFD or lone surrogates'
  if (path.startsWith('/') || path.startsWith('\\') || DRIVE.test(path))
    return 'absolute paths are refused; give a path relative to the skill'
  const segments = path.split(SEPARATOR)
  if (segments.includes('..'))
    return '`..` is refused; resources stay inside the skill'
  if (segments.some(segment => segment === '' || segment === '.'))
    return 'empty and `.` segments are refused'
  return undefined
}

function optionalText(fields: Record<string, FrontmatterValue>, key: 'license' | 'compatibility', problems: string[]): Partial<SkillConfig> {
  const value = fields[key]
  if (value === undefined || value === null)
    return {}
  if (typeof value !== 'string') {
    problems.push(`\`${key}\` must be text`)
    return {}
  }
  return { [key]: value.trim() }
}

function metadataOf(value: FrontmatterValue | undefined, problems: string[]): Partial<SkillConfig> {
  if (value === undefined || value === null)
    return {}
  if (typeof value === 'string' || Array.isArray(value)) {
    problems.push('`metadata` must be a mapping of keys to text')
    return {}
  }
  return { metadata: { ...(value as Record<string, string>) } }
}

/**
 * `allowed-tools`: the specification's space-separated list; commas (as
 * some clients write it) and a YAML list are read too. A comma or space
 * inside parentheses belongs to the entry (`shell(git log:*)`).
 */
function allowedToolsOf(value: FrontmatterValue | undefined, problems: string[]): Partial<SkillConfig> {
  if (value === undefined || value === null)
    return {}
  if (typeof value === 'object' && !Array.isArray(value)) {
    problems.push('`allowed-tools` must be a space-separated list of tool names')
    return {}
  }
  // Declared empty (`[]`, `""`) is the strictest gate, as an inline `allowedTools: []` is: read as no
  // declaration it was no gate at all. Only an absent or null value leaves the skill ungated.
  return { allowedTools: (typeof value === 'string' ? [value] : value as readonly string[]).flatMap(splitToolList) }
}

function splitToolList(text: string): string[] {
  const entries: string[] = []
  let current = ''
  let depth = 0
  for (const char of text) {
    if (char === '(')
      depth++
    else if (char === ')')
      depth = Math.max(0, depth - 1)
    if (depth === 0 && (char === ',' || WHITESPACE.test(char))) {
      if (current !== '')
        entries.push(current)
      current = ''
      continue
    }
    current += char
  }
  if (current !== '')
    entries.push(current)
  return entries
}

function lastSegment(dir: string): string {
  const parts = dir.split(SEPARATOR).filter(part => part !== '')
  return parts.at(-1) ?? ''
}
