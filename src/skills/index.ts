/**
 * `zidane/skills`: Agent Skills (folders with a `SKILL.md`) as an agent uses
 * them. `createAgent({ skills })` takes the same sources; these functions
 * load and check skills without an agent (a host listing them, a linter).
 *
 * @module zidane/skills
 */

export { SkillValidationError } from '../errors'
export { buildSkillCatalog, DEFAULT_SKILL_CATALOG_MAX_CHARS, MIN_SKILL_CATALOG_MAX_CHARS, searchSkills, SKILL_SEARCH_LIMIT } from './catalog'
export type { SkillCatalog } from './catalog'
export { loadSkills, MAX_SKILL_DIR_ENTRIES, MAX_SKILL_RESOURCE_DEPTH, MAX_SKILL_RESOURCES, MAX_SKILLS_PER_FOLDER } from './load'
export { readSkillResource, SKILL_RESOURCE_MAX_BYTES } from './resources'
export type { SkillResourceRead } from './resources'
export type { LoadedSkills, SkillConfig, SkillResource, SkillsConfig, SkillSkip, SkillSource } from './types'
export { parseSkill, SKILL_ALLOWED_TOOL_MAX_CHARS, SKILL_ALLOWED_TOOLS_MAX, SKILL_COMPATIBILITY_MAX_CHARS, SKILL_DESCRIPTION_MAX_CHARS, SKILL_FILE_MAX_BYTES, SKILL_NAME_MAX_CHARS, SKILL_RESOURCE_PATH_MAX_CHARS, skillProblems } from './validate'
