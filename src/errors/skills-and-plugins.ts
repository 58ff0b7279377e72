/**
 * Skills that break the Agent Skills format, and Agent Plugins that cannot be
 * loaded.
 */

/**
 * A skill that breaks a rule of the Agent Skills format: thrown by
 * `parseSkill`, and by `createAgent` for an inline `SkillConfig` (a skill on
 * disk that breaks one is left out and reported with `skills:skip` instead).
 */
export class SkillValidationError extends TypeError {
  override name = 'SkillValidationError'
  /** The skill's name, when it has one. */
  readonly skill?: string
  /** Where it came from (a directory or `SKILL.md`), for a skill on disk. */
  readonly path?: string
  /** Every rule it breaks, one sentence each. */
  readonly problems: readonly string[]
  constructor(problems: readonly string[], where: { skill?: string, path?: string } = {}) {
    const label = where.skill !== undefined ? `Skill "${where.skill}"` : where.path !== undefined ? `The skill at ${where.path}` : 'A skill'
    super(`${label} is invalid: ${problems.join('; ')}`)
    this.skill = where.skill
    this.path = where.path
    this.problems = problems
  }
}

/**
 * An Agent Plugin that cannot be loaded at all (`loadAgentPlugin`): no
 * manifest, a manifest that breaks the specification, or a plugin root that
 * is not a directory. A bad `mcp.json`, server entry or skill is reported in
 * the result instead, and the rest of the plugin still loads.
 */
export class AgentPluginError extends Error {
  override name = 'AgentPluginError'
  /** The plugin root as given. */
  readonly dir: string
  constructor(dir: string, message: string) {
    super(`Agent plugin at ${dir}: ${message}`)
    this.dir = dir
  }
}
