import type { SkillCatalog } from './catalog'
import type { LoadedSkills, SkillConfig, SkillsConfig, SkillSkip, SkillSource } from './types'
import { withGetters } from '../core/fast-accessors'
import { SkillValidationError } from '../errors'
import { buildSkillCatalog, DEFAULT_SKILL_CATALOG_MAX_CHARS, MIN_SKILL_CATALOG_MAX_CHARS } from './catalog'
import { loadSkillSources } from './load'
import { skillProblems } from './validate'

/** An agent's skills once loaded: by name, in name order, with the catalog built from them. */
export interface ReadySkills {
  readonly byName: ReadonlyMap<string, SkillConfig>
  readonly list: readonly SkillConfig[]
  readonly catalog: SkillCatalog
  readonly skipped: readonly SkillSkip[]
  readonly maxChars: number
}

/** What a skill set reports while it loads (the agent turns these into hooks and warnings). */
export interface SkillLoadReport {
  readonly skip: (skip: SkillSkip) => Promise<void>
  readonly overflow: (catalog: SkillCatalog, maxChars: number) => Promise<void>
}

/** An agent's skills: checked inline at once, read from disk once, before the first run plans. */
export interface SkillSet {
  /** Set once `load` finished. */
  readonly ready: ReadySkills | undefined
  /** Read the skills (once; later calls share the first load), reporting what was left out. */
  readonly load: (report: SkillLoadReport) => Promise<ReadySkills>
}

/**
 * The skills of `createAgent({ skills })`. Inline skills are checked here,
 * synchronously: one that breaks a rule (or a second inline skill of a name)
 * throws `SkillValidationError`, so the mistake surfaces at `createAgent`.
 * Directories are read on `load`.
 */
export function createSkillSet(option: readonly SkillSource[] | SkillsConfig): SkillSet {
  const config: SkillsConfig = Array.isArray(option) ? { sources: option as readonly SkillSource[] } : option as SkillsConfig
  if (!config || !Array.isArray(config.sources))
    throw new TypeError('createAgent(): `skills` must be a list of skill paths and skills, or `{ sources }`')
  const maxChars = config.catalogMaxChars ?? DEFAULT_SKILL_CATALOG_MAX_CHARS
  if (!Number.isInteger(maxChars) || maxChars < MIN_SKILL_CATALOG_MAX_CHARS)
    throw new TypeError(`createAgent(): \`skills.catalogMaxChars\` must be an integer of at least ${MIN_SKILL_CATALOG_MAX_CHARS}, got ${String(maxChars)}`)
  const seen = new Set<string>()
  const sources: SkillSource[] = []
  for (const source of config.sources) {
    if (typeof source === 'string') {
      sources.push(source)
      continue
    }
    const problems = skillProblems(source)
    if (problems.length > 0)
      throw new SkillValidationError(problems, typeof source?.name === 'string' ? { skill: source.name } : {})
    if (seen.has(source.name))
      throw new SkillValidationError([`a second inline skill is named "${source.name}"`], { skill: source.name })
    seen.add(source.name)
    // A frozen copy: a host changing its object later must not change the catalog under a cached prompt.
    sources.push(Object.freeze({ ...source, body: source.body }))
  }
  let ready: ReadySkills | undefined
  let loading: Promise<ReadySkills> | undefined
  return withGetters<SkillSet, 'ready'>({
    load(report) {
      loading ??= (async () => {
        const loaded: LoadedSkills = await loadSkillSources(sources)
        for (const skip of loaded.skipped)
          await report.skip(skip)
        const catalog = buildSkillCatalog(loaded.skills, maxChars)
        if (catalog.named.length > 0 || catalog.unlisted.length > 0)
          await report.overflow(catalog, maxChars)
        ready = {
          byName: new Map(loaded.skills.map(skill => [skill.name, skill])),
          list: loaded.skills,
          catalog,
          skipped: loaded.skipped,
          maxChars,
        }
        return ready
      })()
      return loading
    },
  }, { ready: () => ready })
}
