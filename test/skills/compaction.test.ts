import type { SessionTurn } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { autoCompact } from '../../src/policies/auto-compact'
import { runPolicyScript } from '../../src/testing'

const turn = (id: string, role: SessionTurn['role'], content: SessionTurn['content']): SessionTurn => ({ id, role, content, createdAt: 0 })
const BODY = 'Skill "release-notes" is active.\n\n# Release notes\nSort every change into one section.'
const conversation: SessionTurn[] = [
  turn('u0', 'user', [{ type: 'text', text: 'write the notes' }]),
  turn('a1', 'assistant', [{ type: 'tool_call', id: 'c1', name: 'skills_use', input: { name: 'release-notes' } }]),
  turn('r1', 'user', [{ type: 'tool_result', callId: 'c1', output: BODY }]),
  turn('a2', 'assistant', [{ type: 'tool_call', id: 'c2', name: 'skills_use', input: { name: 'failed-one' } }]),
  turn('r2', 'user', [{ type: 'tool_result', callId: 'c2', output: 'No skill is named "failed-one".', isError: true }]),
  turn('a3', 'assistant', [{ type: 'tool_call', id: 'c3', name: 'git_log', input: {} }]),
  turn('r3', 'user', [{ type: 'tool_result', callId: 'c3', output: 'commit '.repeat(2000) }]),
  turn('a4', 'assistant', [{ type: 'tool_call', id: 'c4', name: 'git_log', input: {} }]),
  turn('r4', 'user', [{ type: 'tool_result', callId: 'c4', output: 'x' }]),
]
const crossing = { phase: 'afterTurn' as const, usage: { input: 100, cacheRead: 900 }, toolResults: [{ callId: 'c4', output: 'x', isError: false }] }
const summary = { text: 'the summary', usage: { input: 50, output: 20 }, model: 'm' }

describe('auto-compaction restores active skills', () => {
  it('puts back the instructions of the skills activated in the summarized turns, after the summary', async () => {
    const script = await runPolicyScript(autoCompact, {
      behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2, restore: true } },
      turns: conversation,
      complete: () => summary,
      steps: [crossing],
    })
    const step = script.steps[0]
    const message = step.phase === 'afterTurn' ? step.messages[0] : undefined
    expect(message?.content.map(block => block.type)).toEqual(['compact-summary', 'text'])
    expect(message?.content[1]).toMatchObject({ type: 'text', origin: 'injected', text: `Skill "release-notes" was active before the summary; its instructions, restored:\n${BODY}` })
    expect(script.events.at(-1)).toMatchObject({ hook: 'compact:end', context: { restoredSkills: ['release-notes'] } })
  })

  it('puts nothing back with restore off', async () => {
    const script = await runPolicyScript(autoCompact, {
      behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2, restore: false } },
      turns: conversation,
      complete: () => summary,
      steps: [crossing],
    })
    const step = script.steps[0]
    expect(step.phase === 'afterTurn' && step.messages[0].content.map(block => block.type)).toEqual(['compact-summary'])
    expect(script.events.at(-1)?.context).not.toHaveProperty('restoredSkills')
  })
})
