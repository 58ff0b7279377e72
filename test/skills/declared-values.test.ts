import type { ScriptedTurn } from '../../src/testing'
import type { ToolDef } from '../../src/tools'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { loadSkills, parseSkill } from '../../src/skills'
import { scriptedProvider } from '../../src/testing'
import { scratch, skillFile, writeTree } from './support'

// Frontmatter values that are declared but hold nothing: an empty `allowed-tools` list, a mapping of comments only.

const greet: ToolDef = { spec: { name: 'greet', description: 'Greet.', inputSchema: { type: 'object' } }, execute: () => 'Hello!' }

let cleanup = () => {}
afterEach(() => cleanup())

/** The model activates `lockdown`, then calls greet; what the two calls answered. */
async function activateAndGreet(skills: Parameters<typeof createAgent>[0]['skills']): Promise<string[]> {
  const turns: ScriptedTurn[] = [
    { toolCalls: [{ id: 'use', name: 'skills_use', input: { name: 'lockdown' } }] },
    { toolCalls: [{ id: 'greet', name: 'greet', input: {} }] },
    { text: 'done' },
  ]
  const provider = scriptedProvider(turns)
  await createAgent({ provider, tools: { greet }, skills }).run({ prompt: 'go' })
  return provider.requests.at(-1)!.messages.flatMap(message => (message.content as { type: string, output?: unknown, isError?: boolean }[])
    .filter(block => block.type === 'tool_result')
    .map(block => `${block.isError ? 'ERROR ' : ''}${String(block.output)}`))
}

describe('a declared empty allowed-tools', () => {
  for (const line of ['allowed-tools: []', 'allowed-tools: ""', 'allowed-tools: " , "']) {
    it(`\`${line}\` in a SKILL.md allows no tool, as an inline \`allowedTools: []\` does`, async () => {
      const place = scratch()
      cleanup = place.cleanup
      writeTree(place.dir, { 'lockdown/SKILL.md': skillFile(`name: lockdown\ndescription: Locks tools down.\n${line}`, 'Use no tools.') })
      const loaded = await loadSkills([place.dir])
      expect(loaded.skills[0].allowedTools).toEqual([])
      const [activated, greeted] = await activateAndGreet([join(place.dir, 'lockdown')])
      expect(activated).toContain('While it is active, no tool may be called besides skills_use and skills_read.')
      expect(greeted).toBe('ERROR Blocked: "greet" is not in the allowed-tools of skill "lockdown"')
    })
  }

  it('an inline empty list says so on activation', async () => {
    const [activated, greeted] = await activateAndGreet([{ name: 'lockdown', description: 'Locks tools down.', body: 'Use no tools.', allowedTools: [] }])
    expect(activated).toContain('While it is active, no tool may be called besides skills_use and skills_read.')
    expect(activated).not.toContain('only these tools may be called')
    expect(greeted).toBe('ERROR Blocked: "greet" is not in the allowed-tools of skill "lockdown"')
  })

  it('an absent or null allowed-tools leaves the skill ungated', () => {
    expect(parseSkill(skillFile('name: free\ndescription: No gate.')).allowedTools).toBeUndefined()
    expect(parseSkill(skillFile('name: free\ndescription: No gate.\nallowed-tools:')).allowedTools).toBeUndefined()
    expect(parseSkill(skillFile('name: free\ndescription: No gate.\nallowed-tools: ~')).allowedTools).toBeUndefined()
  })
})

describe('a key holding only comments', () => {
  it('is null, as YAML reads it: the skill loads', async () => {
    const text = skillFile('name: my-skill\ndescription: Does a thing.\nmetadata:\n  # filled in later\n\n  # and more\nallowed-tools:\n  # none decided')
    const skill = parseSkill(text)
    expect(skill.metadata).toBeUndefined()
    expect(skill.allowedTools).toBeUndefined()
    const place = scratch()
    cleanup = place.cleanup
    writeTree(place.dir, { 'my-skill/SKILL.md': text })
    const loaded = await loadSkills([place.dir])
    expect(loaded.skipped).toEqual([])
    expect(loaded.skills.map(found => found.name)).toEqual(['my-skill'])
  })

  it('a mapping with comments between its keys keeps the keys', () => {
    const skill = parseSkill(skillFile('name: my-skill\ndescription: Does a thing.\nmetadata:\n  # owner first\n  owner: ops\n  # then\n  tier: gold'))
    expect(skill.metadata).toEqual({ owner: 'ops', tier: 'gold' })
  })
})
