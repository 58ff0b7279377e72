import type { SkillConfig } from './types'
import { queryWords } from '../text/query-words'

const LINE_BREAK = /\s*\n\s*/g
const NON_WORD = /[^a-z0-9]+/

/** Default most characters of the `skills` prompt section. */
export const DEFAULT_SKILL_CATALOG_MAX_CHARS = 12_000
/** Smallest catalog budget accepted: the fixed header and the overflow lines need about 600 characters. */
export const MIN_SKILL_CATALOG_MAX_CHARS = 1000
/** Most skills a `skills_use { query }` search returns. */
export const SKILL_SEARCH_LIMIT = 10

/** The catalog as built: its text and which skills it lists in full, by name only, or not at all. */
export interface SkillCatalog {
  readonly text: string
  /** Listed with their description. */
  readonly described: readonly string[]
  /** Listed by name alone. */
  readonly named: readonly string[]
  /** Only counted. */
  readonly unlisted: readonly string[]
}

const NAMES_PREFIX = 'Also available (names only, for space): '

const HEADER = [
  '# Skills',
  'Skills are folders of instructions for particular tasks. When a task matches a skill\'s description, call `skills_use` with its name before you start:',
  'it returns the instructions and the files the skill ships (read one with `skills_read`). Use only skills listed here or found with `skills_use { query }`.',
  '',
].join('\n')

/**
 * The catalog section, a pure function of the skills (sorted by name) and the
 * budget, so it is byte-identical on every turn and every run of the same
 * skills; activating a skill never changes it. Budget rule, in order: every
 * skill with its whole description while the text stays within `maxChars`
 * (descriptions are never cut: a cut description is how routing fails); then
 * the remaining skills by name alone while they fit; then a count of the
 * rest. Whenever a skill is not described, the section ends by saying how to
 * find it (`skills_use { query }` searches every skill).
 */
export function buildSkillCatalog(skills: readonly SkillConfig[], maxChars: number): SkillCatalog {
  if (!Number.isInteger(maxChars) || maxChars < MIN_SKILL_CATALOG_MAX_CHARS)
    throw new RangeError(`The skills catalog budget must be an integer of at least ${MIN_SKILL_CATALOG_MAX_CHARS} characters, got ${String(maxChars)}`)
  const sorted = [...skills].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  const entries = sorted.map(skill => `- ${skill.name}: ${oneLine(skill.description)}`)
  const whole = `${HEADER}${entries.join('\n')}`
  if (whole.length <= maxChars)
    return { text: whole, described: sorted.map(skill => skill.name), named: [], unlisted: [] }
  // Room kept for the closing lines, whose length depends on counts: their longest form.
  const closing = (named: number, unlisted: number) => overflowLines(named, unlisted, sorted.length)
  const reserve = closing(sorted.length, sorted.length).length + NAMES_PREFIX.length + 2
  let used = HEADER.length
  let described = 0
  while (described < sorted.length && used + entries[described].length + 1 + reserve <= maxChars) {
    used += entries[described].length + 1
    described++
  }
  const namedNames: string[] = []
  for (let i = described; i < sorted.length; i++) {
    const cost = sorted[i].name.length + 2
    if (used + cost + reserve > maxChars)
      break
    used += cost
    namedNames.push(sorted[i].name)
  }
  const unlisted = sorted.slice(described + namedNames.length).map(skill => skill.name)
  const lines = [HEADER + entries.slice(0, described).join('\n')]
  if (namedNames.length > 0)
    lines.push(`${NAMES_PREFIX}${namedNames.join(', ')}`)
  lines.push(closing(namedNames.length, unlisted.length))
  return { text: lines.join('\n'), described: sorted.slice(0, described).map(skill => skill.name), named: namedNames, unlisted }
}

function overflowLines(named: number, unlisted: number, total: number): string {
  const missing = unlisted > 0 ? ` ${unlisted} more are not listed.` : ''
  return `(${total} skills in all; ${total - named - unlisted} are described here.${missing} Find any skill by what it does with \`skills_use { query: "…" }\`.)`
}

/** Descriptions are one line in the catalog: line breaks become spaces. */
function oneLine(text: string): string {
  return text.replace(LINE_BREAK, ' ').trim()
}

/**
 * Skills whose name or description share words with `query`, best first:
 * each query word found in the name counts 3, in the description 1; ties go
 * to name order. Deterministic, so the same query finds the same skills.
 */
export function searchSkills(skills: readonly SkillConfig[], query: string, limit = SKILL_SEARCH_LIMIT): SkillConfig[] {
  // Each word is tried against every long token of every skill: 400 words against 1,000 full descriptions took a
  // third of a second per call before the query was cut (`queryWords`).
  const words = queryWords(query, 2)
  if (words.length === 0)
    return []
  const scored = skills.map((skill) => {
    const name = skill.name.toLowerCase()
    const description = new Set(skill.description.toLowerCase().split(NON_WORD))
    // Collected once per skill, not spread again for each query word.
    const long = [...description].filter(token => token.length > 3)
    let score = 0
    for (const word of words) {
      if (name.includes(word))
        score += 3
      if (description.has(word) || (word.length > 3 && long.some(token => token.startsWith(word) || word.startsWith(token))))
        score += 1
    }
    return { skill, score }
  })
  return scored
    .filter(entry => entry.score > 0)
    .sort((a, b) => b.score - a.score || (a.skill.name < b.skill.name ? -1 : 1))
    .slice(0, limit)
    .map(entry => entry.skill)
}
