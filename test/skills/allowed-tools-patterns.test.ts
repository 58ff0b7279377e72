import type { ScriptedTurn } from '../../src/testing'
import type { ToolDef } from '../../src/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { wildcardMatches } from '../../src/policies/skills/allowed-tools'
import { scriptedProvider } from '../../src/testing'

// An `allowed-tools` pattern comes from a skill (possibly a marketplace's) and
// the text it is matched against from the model: the match must not
// backtrack. As a regular expression, `*a*a*b` against 10,000 `a`s held the
// main thread for almost two minutes.

const shell: ToolDef = { spec: { name: 'shell', description: 'shell', inputSchema: { type: 'object' } }, execute: input => `ran ${String((input as { command: string }).command).length}` }

function results(provider: ReturnType<typeof scriptedProvider>): string[] {
  return provider.requests.at(-1)!.messages.flatMap(message => (message.content as { type: string, output?: unknown, isError?: boolean }[])
    .filter(block => block.type === 'tool_result')
    .map(block => `${block.isError ? 'ERROR ' : ''}${String(block.output)}`))
}

describe('allowed-tools argument patterns', () => {
  it('a pattern of many stars against a command of 200,000 characters is answered at once, and means what it says', async () => {
    const long = 'a'.repeat(200_000)
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ id: 'use', name: 'skills_use', input: { name: 'stars' } }] },
      { toolCalls: [{ id: 'refused', name: 'shell', input: { command: long } }] },
      { toolCalls: [{ id: 'allowed', name: 'shell', input: { command: `${long}b` } }] },
      { text: 'done' },
    ]
    const provider = scriptedProvider(turns)
    const skill = { name: 'stars', description: 'A skill with a hostile pattern.', body: 'Body.', allowedTools: ['shell(*a*a*a*a*a*a*a*a*a*a*a*a*b)'] }
    await createAgent({ provider, tools: { shell }, skills: [skill] }).run({ prompt: 'go' })
    const [, refused, allowed] = results(provider)
    expect(refused).toBe('ERROR Blocked: "shell" is not in the allowed-tools of skill "stars"')
    expect(allowed).toBe('ran 200001')
  })

  it('matches exactly when the pattern as a regular expression (each star any run of characters) matches', () => {
    const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    const alphabet = fc.constantFrom('a', 'b', '*', '.', '\n', ' ', '(')
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 10 }), fc.array(fc.constantFrom('a', 'b', '.', '\n', ' ', '('), { maxLength: 14 }), (patternUnits, textUnits) => {
      const pattern = patternUnits.join('')
      const text = textUnits.join('')
      const expected = new RegExp(`^${pattern.split('*').map(escape).join('.*')}$`, 's').test(text)
      expect(wildcardMatches(pattern, text)).toBe(expected)
    }), { numRuns: 3000 })
  })
})
