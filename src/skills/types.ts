/**
 * The shapes of Agent Skills as zidane holds them: a skill given inline
 * (`SkillConfig`), the files it ships (`SkillResource`), what an agent's
 * `skills` option takes (`SkillsConfig`), and what loading reports.
 */

/** One file a skill ships (under `scripts/`, `references/`, `assets/`, …), by its path relative to the skill. */
export interface SkillResource {
  /** Relative to the skill's directory, `/`-separated, never absolute and never with `..`. */
  readonly path: string
  /** The text, for an inline skill; absent, the file is read from the skill's `dir` when asked for. */
  readonly content?: string
}

/**
 * A skill: what a `SKILL.md` holds once parsed, or one a host writes inline.
 * Field rules follow the Agent Skills specification (see `docs/skills.md`).
 */
export interface SkillConfig {
  /** 1–64 characters of `a-z`, `0-9` and `-`, no leading, trailing or doubled hyphen; equal to its directory's name when it has one. */
  readonly name: string
  /** What the skill does and when to use it, 1–1024 characters: the model routes on it. */
  readonly description: string
  /** The instructions (the `SKILL.md` body, frontmatter stripped). */
  readonly body: string
  readonly license?: string
  /** Environment requirements, at most 500 characters. */
  readonly compatibility?: string
  /** Free key/value data of the skill's author. */
  readonly metadata?: Readonly<Record<string, string>>
  /**
   * Tools the skill may use while it is active (`allowed-tools`): when set,
   * any other tool call is refused until the run ends. Entries are tool
   * names, optionally with a command pattern (`shell(git:*)`).
   */
  readonly allowedTools?: readonly string[]
  /** The files it ships; for a skill on disk, listed when it loads. */
  readonly resources?: readonly SkillResource[]
  /** The directory it was loaded from (absolute), where its resources are read. */
  readonly dir?: string
}

/** What an agent's `skills` option names: a skill directory (holding `SKILL.md`), a folder of them, or an inline skill. */
export type SkillSource = string | SkillConfig

/** The `skills` option with its catalog settings. */
export interface SkillsConfig {
  readonly sources: readonly SkillSource[]
  /**
   * Most characters of the `skills` prompt section. Skills are listed by
   * name with their whole description while they fit, then by name alone,
   * then counted; every skill stays reachable through `skills_use { query }`.
   * Default: `DEFAULT_SKILL_CATALOG_MAX_CHARS` (12,000); at least
   * `MIN_SKILL_CATALOG_MAX_CHARS` (1,000).
   */
  readonly catalogMaxChars?: number
}

/** A skill on disk that was left out, and why (`skills:skip`). */
export interface SkillSkip {
  /** The skill's directory or `SKILL.md`. */
  readonly path: string
  /** Its name, when the frontmatter gave one. */
  readonly name?: string
  /** The rule it broke. */
  readonly reason: string
}

/** What `loadSkills` returns: the valid skills by name order, and every skill it left out. */
export interface LoadedSkills {
  readonly skills: readonly SkillConfig[]
  readonly skipped: readonly SkillSkip[]
}
