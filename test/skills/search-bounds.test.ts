import type { SkillConfig } from '../../src/skills'
import { describe, expect, it } from 'vitest'
import { searchSkills } from '../../src/skills'

// skills_use { query } scores each query word against every long word of every skill's description, on the
// agent's thread: the query is bounded before it is scored.

/** 1,000 skills (a folder's cap) with descriptions of distinct long words, as long as a description may be. */
const word = (n: number) => `w${n.toString(36).padStart(5, '0')}`
const skills: SkillConfig[] = Array.from({ length: 1000 }, (_, i) => ({
  name: `skill-${String(i).padStart(4, '0')}`,
  description: Array.from({ length: 140 }, (_, j) => word(i * 140 + j)).join(' ').slice(0, 1024),
  body: '',
}))

describe('searchSkills bounds its query', () => {
  it('scores the first 32 distinct words only', () => {
    const filler = Array.from({ length: 31 }, (_, i) => `q${i.toString(36).padStart(3, '0')}`).join(' ')
    const target = word(5 * 140)
    expect(searchSkills(skills, `${filler} ${target}`).map(skill => skill.name)).toEqual(['skill-0005'])
    // Repeats count once, so they do not push a word out.
    expect(searchSkills(skills, `${filler} ${filler} ${target}`).map(skill => skill.name)).toEqual(['skill-0005'])
    expect(searchSkills(skills, `${filler} qextra ${target}`)).toEqual([])
  })

  it('reads the first 2,000 characters: a megabyte answers at once', () => {
    expect(searchSkills(skills, `${' '.repeat(1990)}${word(7 * 140)}`).map(skill => skill.name)).toEqual(['skill-0007'])
    expect(searchSkills(skills, `${' '.repeat(2000)}${word(7 * 140)}`)).toEqual([])
    expect(searchSkills(skills, 'qq '.repeat(333_000))).toEqual([])
  })
})
