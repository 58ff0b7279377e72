import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SkillValidationError } from '../../src/errors'
import { buildSkillCatalog, loadSkills, parseSkill, readSkillResource } from '../../src/skills'
import { libraryCopy, scratch } from './support'

const skillName = fc.stringMatching(/^[a-z0-9]{1,8}(?:-[a-z0-9]{1,8}){0,3}$/)

describe('skills_read confinement (property)', () => {
  let dir: string
  let cleanup: () => void
  let skillDir: string
  let insideTexts: Set<string>
  beforeAll(() => {
    ({ dir, cleanup } = scratch())
    const copy = libraryCopy(dir)
    skillDir = join(copy, 'sql-review')
    writeFileSync(join(dir, 'secret.txt'), 'SECRET-OUTSIDE')
    writeFileSync(join(copy, 'secret.txt'), 'SECRET-SIBLING')
    symlinkSync(join(dir, 'secret.txt'), join(skillDir, 'references', 'out.md'))
    symlinkSync(dir, join(skillDir, 'references', 'up'))
    insideTexts = new Set(['references/indexes.md', 'scripts/engine-version.sh', 'SKILL.md'].map(path => readFileSync(join(skillDir, path), 'utf8')))
  })
  afterAll(() => cleanup())

  const segment = fc.constantFrom('..', '.', '', 'references', 'scripts', 'indexes.md', 'engine-version.sh', 'SKILL.md', 'out.md', 'up', 'secret.txt', 'sql-review', '%2e%2e', '...', 'C:', '\\')
  const path = fc.tuple(fc.constantFrom('', '/', '\\', './'), fc.array(segment, { minLength: 1, maxLength: 6 }), fc.constantFrom('/', '\\'))
    .map(([lead, parts, sep]) => lead + parts.join(sep))

  it('any path either reads a file that lies inside the skill or is refused; nothing outside ever comes back', async () => {
    const { skills } = await loadSkills([skillDir])
    await fc.assert(fc.asyncProperty(fc.oneof(path, fc.string()), async (candidate) => {
      const read = await readSkillResource(skills[0], candidate)
      if ('text' in read)
        expect(insideTexts.has(read.text)).toBe(true)
      else
        expect(read.error).not.toContain('SECRET')
    }), { numRuns: 400 })
  })
})

describe('frontmatter (property)', () => {
  it('a valid name and any description written as a double-quoted scalar round-trip; a bad one is a SkillValidationError', () => {
    fc.assert(fc.property(skillName, fc.string({ maxLength: 1100 }), (name, description) => {
      const text = `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\nbody`
      const trimmed = description.trim()
      if (trimmed === '' || trimmed.length > 1024 || name.length > 64) {
        expect(() => parseSkill(text)).toThrow(SkillValidationError)
        return
      }
      const skill = parseSkill(text)
      expect(skill).toMatchObject({ name, description: trimmed, body: 'body' })
    }), { numRuns: 300 })
  })

  it('any text either parses or throws SkillValidationError, nothing else', () => {
    const frontmatterish = fc.array(fc.oneof(
      fc.constantFrom('---', 'name: a-skill', 'description: d', 'metadata:', '  k: v', '  - item', 'allowed-tools: [a, b', 'license: |', '  text', '"', '\'', 'key', ':', '  ', '#'),
      fc.string({ maxLength: 20 }),
    ), { maxLength: 12 }).map(lines => lines.join('\n'))
    fc.assert(fc.property(fc.oneof(frontmatterish, fc.string()), (text) => {
      try {
        parseSkill(text)
      }
      catch (error) {
        expect(error).toBeInstanceOf(SkillValidationError)
      }
    }), { numRuns: 500 })
  })
})

describe('catalog budget (property)', () => {
  it('stays within its budget, places every skill exactly once, in name order, and is the same for the same input', () => {
    const skills = fc.uniqueArray(fc.record({ name: skillName, description: fc.string({ minLength: 1, maxLength: 300 }).filter(text => text.trim() !== '') }), { selector: skill => skill.name, maxLength: 60 })
    fc.assert(fc.property(skills, fc.integer({ min: 1000, max: 6000 }), (list, maxChars) => {
      const full = list.map(skill => ({ ...skill, body: '' }))
      const catalog = buildSkillCatalog(full, maxChars)
      const sorted = full.map(skill => skill.name).sort()
      expect([...catalog.described, ...catalog.named, ...catalog.unlisted]).toEqual(sorted)
      if (catalog.named.length + catalog.unlisted.length > 0)
        expect(catalog.text.length).toBeLessThanOrEqual(maxChars)
      expect(buildSkillCatalog([...full].reverse(), maxChars).text).toBe(catalog.text)
    }), { numRuns: 300 })
    expect(() => buildSkillCatalog([], 999)).toThrow(RangeError)
  })
})
