import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { SkillValidationError } from '../../src/errors'
import { loadSkills, parseSkill } from '../../src/skills'
import { scriptedProvider } from '../../src/testing'
import { LIBRARY, libraryCopy, scratch, skillFile, writeTree } from './support'

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
  vi.restoreAllMocks()
})
function tmp(): string {
  const { dir, cleanup } = scratch()
  cleanups.push(cleanup)
  return dir
}

describe('loadSkills: skills in the shape public repositories use', () => {
  it('loads a folder of skills unchanged, sorted, with their fields, bodies and files', async () => {
    const { skills, skipped } = await loadSkills([LIBRARY])
    expect(skipped).toEqual([])
    expect(skills.map(skill => skill.name)).toEqual(['pdf-forms', 'release-notes', 'sql-review'])
    const [pdf, notes, sql] = skills
    expect(pdf).toMatchObject({
      description: expect.stringMatching(/^Fill in, inspect and flatten PDF forms\. Use when/),
      license: 'Apache-2.0. Complete terms in LICENSE.txt',
      allowedTools: ['Bash(python3:*)', 'Read', 'Write'],
      metadata: { author: 'example-docs-team', version: '2.1' },
      dir: join(LIBRARY, 'pdf-forms'),
    })
    expect(pdf.body.startsWith('# PDF forms\n')).toBe(true)
    expect(pdf.body).not.toContain('allowed-tools')
    expect(pdf.body).toContain('python3 scripts/fill_fields.py output.pdf values.json final.pdf --flatten')
    expect(pdf.resources?.map(resource => resource.path)).toEqual(['references/field-types.md', 'references/flat-forms.md', 'scripts/fill_fields.py', 'scripts/list_fields.py'])
    // A folded description reads as one paragraph.
    expect(notes.description).toBe('Write release notes and changelog entries from a range of git commits or merged pull requests. Use when asked for release notes, a changelog, a "what\'s new" summary, or to prepare the text of a version bump.')
    expect(notes.compatibility).toBe('Needs git on the PATH and a repository with tags.')
    expect(notes.resources?.map(resource => resource.path)).toEqual(['assets/template.md', 'references/style.md'])
    // Fields other clients add (version, disable-model-invocation) are ignored; a YAML list of tools is read.
    expect(sql.allowedTools).toEqual(['read_file', 'grep', 'shell(psql --version)'])
    expect(sql.metadata).toEqual({ author: 'platform-team', category: 'databases' })
    expect(Object.keys(sql)).not.toContain('version')
  })

  it('loads one skill directory given directly, and the same skills in the same order on every load', async () => {
    const single = await loadSkills([join(LIBRARY, 'sql-review')])
    expect(single.skills.map(skill => skill.name)).toEqual(['sql-review'])
    expect(JSON.stringify(await loadSkills([LIBRARY]))).toBe(JSON.stringify(await loadSkills([LIBRARY])))
  })

  it('reports every skill that breaks a rule with its path and the rule, and still loads the valid ones', async () => {
    const root = tmp()
    writeTree(root, {
      'good-one/SKILL.md': skillFile('name: good-one\ndescription: A valid skill.'),
      'Bad-Case/SKILL.md': skillFile('name: Bad-Case\ndescription: Upper case.'),
      'mismatch/SKILL.md': skillFile('name: other-name\ndescription: Name differs from its folder.'),
      'no-description/SKILL.md': skillFile('name: no-description'),
      'long-description/SKILL.md': skillFile(`name: long-description\ndescription: ${'d'.repeat(1025)}`),
      'long-compat/SKILL.md': skillFile(`name: long-compat\ndescription: ok\ncompatibility: ${'c'.repeat(501)}`),
      'double--hyphen/SKILL.md': skillFile('name: double--hyphen\ndescription: ok'),
      'broken-yaml/SKILL.md': skillFile('name: broken-yaml\ndescription: "never closed'),
      'no-fence/SKILL.md': 'name: no-fence\ndescription: no frontmatter fence\n',
      'not-a-skill/README.md': 'just a folder',
    })
    const { skills, skipped } = await loadSkills([root])
    expect(skills.map(skill => skill.name)).toEqual(['good-one'])
    const reasons = Object.fromEntries(skipped.map(skip => [skip.path.slice(root.length + 1), skip.reason]))
    expect(reasons).toMatchObject({
      'Bad-Case': expect.stringContaining('lowercase'),
      'mismatch': expect.stringContaining('must equal its directory\'s name "mismatch"'),
      'no-description': expect.stringContaining('`description` is required'),
      'long-description': expect.stringContaining('1025 characters; at most 1024'),
      'long-compat': expect.stringContaining('at most 500'),
      'double--hyphen': expect.stringContaining('single hyphens'),
      'broken-yaml': expect.stringContaining('not closed'),
      'no-fence': expect.stringContaining('must start with a `---` line'),
    })
    expect(skipped.find(skip => skip.path.endsWith('mismatch'))?.name).toBe('other-name')
    // A folder without SKILL.md is not a skill, and is not reported as one.
    expect(Object.keys(reasons)).not.toContain('not-a-skill')
  })

  it('refuses a SKILL.md that is a link out of its skill, and a second skill of a name already loaded', async () => {
    const root = tmp()
    const outside = tmp()
    writeTree(outside, { 'SKILL.md': skillFile('name: linked\ndescription: lives elsewhere') })
    writeTree(root, { 'linked/notes.md': 'x' })
    symlinkSync(join(outside, 'SKILL.md'), join(root, 'linked', 'SKILL.md'))
    const copy = libraryCopy(tmp())
    const { skills, skipped } = await loadSkills([LIBRARY, copy, root, join(root, 'missing')])
    expect(skills.map(skill => skill.name)).toEqual(['pdf-forms', 'release-notes', 'sql-review'])
    expect(skipped).toEqual(expect.arrayContaining([
      { path: join(root, 'linked', 'SKILL.md'), reason: 'SKILL.md is a link that leaves the skill directory' },
      { path: join(copy, 'pdf-forms'), name: 'pdf-forms', reason: `a skill named "pdf-forms" was already loaded from ${join(LIBRARY, 'pdf-forms')}` },
      { path: join(root, 'missing'), reason: 'no such file or directory' },
    ]))
  })

  it('lists only files inside the skill: a link out of it is left out of the resources', async () => {
    const copy = libraryCopy(tmp())
    const outside = tmp()
    writeFileSync(join(outside, 'secret.txt'), 'secret')
    symlinkSync(join(outside, 'secret.txt'), join(copy, 'sql-review', 'references', 'secret.txt'))
    symlinkSync(join(copy, 'sql-review', 'references', 'indexes.md'), join(copy, 'sql-review', 'references', 'alias.md'))
    const { skills } = await loadSkills([join(copy, 'sql-review')])
    expect(skills[0].resources?.map(resource => resource.path)).toEqual(['references/alias.md', 'references/indexes.md', 'scripts/engine-version.sh'])
  })
})

describe('parseSkill', () => {
  it('reads the frontmatter forms real skills use and strips it from the body', () => {
    const skill = parseSkill([
      '---',
      '# a comment',
      'name: \'quoted-name\'',
      'description: A description that wraps',
      '  onto a second line # with a comment',
      'metadata:',
      '  owner: "team a"',
      'allowed-tools: [read_file, "shell(git:*)"]',
      'license: |',
      '  Line one',
      '  Line two',
      '---',
      '',
      'Body.',
    ].join('\n'))
    expect(skill).toEqual({
      name: 'quoted-name',
      description: 'A description that wraps onto a second line',
      body: 'Body.',
      license: 'Line one\nLine two',
      metadata: { owner: 'team a' },
      allowedTools: ['read_file', 'shell(git:*)'],
    })
  })

  it('throws SkillValidationError listing every broken rule', () => {
    const error = (() => {
      try {
        parseSkill(skillFile('name: -bad\ndescription: ""\nname2: x\nmetadata: text'), '/skills/-bad')
      }
      catch (caught) {
        return caught as SkillValidationError
      }
    })()
    expect(error).toBeInstanceOf(SkillValidationError)
    expect(error?.path).toBe('/skills/-bad')
    expect(error?.problems).toEqual([
      '`metadata` must be a mapping of keys to text',
      expect.stringContaining('single hyphens'),
      expect.stringContaining('`description` is required'),
    ])
    expect(() => parseSkill(skillFile('name: a\nname: b\ndescription: x'))).toThrow(/duplicate key "name"/)
  })
})

describe('inline skills at createAgent', () => {
  const provider = scriptedProvider([])
  it('an inline skill that breaks a rule throws SkillValidationError at createAgent', () => {
    expect(() => createAgent({ provider, skills: [{ name: 'Nope', description: 'x', body: 'y' }] })).toThrow(SkillValidationError)
    expect(() => createAgent({ provider, skills: [{ name: 'ok', description: '', body: 'y' }] })).toThrow(/`description` is required/)
    expect(() => createAgent({ provider, skills: [{ name: 'ok', description: 'x', body: 'y', resources: [{ path: '../etc/passwd', content: 'x' }] }] })).toThrow(/`\.\.` is refused/)
    expect(() => createAgent({ provider, skills: [{ name: 'ok', description: 'x', body: 'y' }, { name: 'ok', description: 'x', body: 'z' }] })).toThrow(/second inline skill/)
    expect(() => createAgent({ provider, skills: { sources: [], catalogMaxChars: 10 } })).toThrow(/catalogMaxChars/)
    expect(() => createAgent({ provider, skills: [{ name: 'ok', description: 'x', body: 'y' }, LIBRARY] })).not.toThrow()
  })

  it('a skill on disk that breaks a rule is left out at the first run: skills:skip and a process warning', async () => {
    const root = tmp()
    writeTree(root, { 'Bad/SKILL.md': skillFile('name: Bad\ndescription: x'), 'fine/SKILL.md': skillFile('name: fine\ndescription: fine') })
    const warnings: string[] = []
    vi.spyOn(process, 'emitWarning').mockImplementation(((message: string) => {
      warnings.push(message)
    }) as typeof process.emitWarning)
    const skips: unknown[] = []
    const agent = createAgent({ provider: scriptedProvider([{ text: 'done' }]), skills: [root], hooks: { 'skills:skip': ctx => void skips.push(ctx) } })
    await agent.run({ prompt: 'hi' })
    expect(skips).toEqual([{ path: join(root, 'Bad'), name: 'Bad', reason: expect.stringContaining('lowercase') }])
    expect(warnings).toEqual([expect.stringContaining(`Skill left out (${join(root, 'Bad')}, "Bad")`)])
  })
})
