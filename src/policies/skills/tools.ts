import type { ReadySkills } from '../../skills/skill-set'
import type { SkillConfig } from '../../skills/types'
import type { ToolDef, ToolMap } from '../../tools/types'
import { searchSkills } from '../../skills/catalog'
import { readSkillResource } from '../../skills/resources'

const LINE_BREAK = /\s*\n\s*/g

/** Tool names of the skills policy (also listed in `DEFAULT_BUDGET_EXCLUDE_TOOLS`). */
export const SKILLS_USE = 'skills_use'
export const SKILLS_READ = 'skills_read'

/** Input of `skills_use`: a skill to activate by `name`, or a `query` to search every skill. */
export interface SkillsUseInput {
  name?: string
  query?: string
  reason?: string
}

/** Input of `skills_read`. */
export interface SkillsReadInput {
  name: string
  path: string
}

/** Longest query or reason the tools accept (a model pasting a document as a query is refused, not scanned). */
const MAX_TEXT_INPUT = 2000

/** The two tools over the agent's loaded skills. */
export function skillTools(skills: ReadySkills): ToolMap {
  return { [SKILLS_USE]: skillsUseTool(skills), [SKILLS_READ]: skillsReadTool(skills) }
}

function skillsUseTool(skills: ReadySkills): ToolDef<SkillsUseInput> {
  return {
    spec: {
      name: SKILLS_USE,
      description: 'Use a skill from the Skills section of the system prompt: give its `name` to get its instructions and the list of files it ships, and follow them. '
        + 'Give a `query` instead (a few words on the task) to search every skill, including those the section could not list.',
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The skill\'s name, exactly as listed.' },
          query: { type: 'string', description: 'Words describing the task, to find a skill (nothing is activated).' },
          reason: { type: 'string', description: 'In one sentence, why this skill fits the task.' },
        },
        additionalProperties: false,
      },
    },
    isConcurrencySafe: true,
    execute(input) {
      if (typeof input.name === 'string' && input.name !== '')
        return useSkill(skills, input.name)
      if (typeof input.query === 'string' && input.query.trim() !== '')
        return findSkills(skills, input.query)
      throw new Error('Give `name` (a skill to use) or `query` (words to search the skills by).')
    },
    validate(input) {
      const value = input as SkillsUseInput
      if (typeof value !== 'object' || value === null)
        return { ok: false, error: 'Input must be an object with `name` or `query`.' }
      for (const key of ['name', 'query', 'reason'] as const) {
        const field = value[key]
        if (field !== undefined && (typeof field !== 'string' || field.length > MAX_TEXT_INPUT))
          return { ok: false, error: `\`${key}\` must be text of at most ${MAX_TEXT_INPUT} characters.` }
      }
      return { ok: true, value }
    },
  }
}

function useSkill(skills: ReadySkills, name: string): string {
  const skill = skills.byName.get(name)
  if (!skill) {
    const near = searchSkills(skills.list, name.replaceAll('-', ' '), 5).map(found => found.name)
    throw new Error(`No skill is named "${name}".${near.length > 0 ? ` Close matches: ${near.join(', ')}.` : ''} Search with skills_use { query }.`)
  }
  return skillText(skill)
}

/** What the model reads when a skill is activated: where it lives, what it allows, its body, its files. */
export function skillText(skill: SkillConfig): string {
  const head = [`Skill "${skill.name}" is active.`]
  if (skill.dir !== undefined)
    head.push(`Its directory: ${skill.dir} (paths in the instructions are relative to it).`)
  if (skill.allowedTools?.length === 0)
    head.push('While it is active, no tool may be called besides skills_use and skills_read.')
  else if (skill.allowedTools)
    head.push(`While it is active, only these tools may be called (besides skills_use and skills_read): ${skill.allowedTools.join(', ')}.`)
  const files = (skill.resources ?? []).map(resource => `- ${resource.path}`)
  const tail = files.length > 0
    ? `\n\nFiles of this skill (read one with skills_read { name: "${skill.name}", path }):\n${files.join('\n')}`
    : ''
  return `${head.join('\n')}\n\n${skill.body.trim()}${tail}`
}

function findSkills(skills: ReadySkills, query: string): string {
  const found = searchSkills(skills.list, query)
  if (found.length === 0)
    return `No skill matched "${query}". Try other words; there are ${skills.list.length} skills in all.`
  const lines = found.map(skill => `- ${skill.name}: ${skill.description.replace(LINE_BREAK, ' ')}`)
  return `Skills matching "${query}" (use one with skills_use { name }):\n${lines.join('\n')}`
}

function skillsReadTool(skills: ReadySkills): ToolDef<SkillsReadInput> {
  return {
    spec: {
      name: SKILLS_READ,
      description: 'Read one file a skill ships (a path from the list skills_use gave), relative to the skill\'s directory.',
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The skill\'s name.' },
          path: { type: 'string', description: 'The file\'s path relative to the skill, e.g. references/guide.md.' },
        },
        required: ['name', 'path'],
        additionalProperties: false,
      },
    },
    isConcurrencySafe: true,
    async execute(input) {
      const skill = skills.byName.get(input.name)
      if (!skill)
        throw new Error(`No skill is named "${input.name}".`)
      const read = await readSkillResource(skill, input.path)
      if ('error' in read)
        throw new Error(read.error)
      return read.text
    },
  }
}
