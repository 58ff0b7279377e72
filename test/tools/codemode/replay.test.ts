import type { RunEffects } from '../../../src/core/effects'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../../src'
import { defaultRunEffects } from '../../../src/core/effects'
import { scriptedProvider } from '../../../src/testing'
import { lookupTool } from './helpers'

// A journaling host (a durable engine) records each tool execution through
// `RunEffects.tool`. Replayed, the codemode call answers from the journal:
// its script does not run again, so none of its nested calls does either.

/** Effects that journal every tool execution by call id, and answer from the journal when it has the call. */
function journaling(journal: Map<string, unknown>, executed: string[]): RunEffects {
  const base = defaultRunEffects()
  return {
    ...base,
    tool: async (call, exec) => {
      if (journal.has(call.callId))
        return journal.get(call.callId) as never
      executed.push(call.callId)
      const output = await exec()
      journal.set(call.callId, output)
      return output
    },
  }
}

describe('codemode under a journaling host', () => {
  it('a replay answers the script from the journal and runs no tool', async () => {
    const code = 'let sum = 0\nfor (const id of [1, 2, 3]) sum += (await tools.lookup({ id })).price\nreturn sum'
    const script = () => scriptedProvider([{ toolCalls: [{ id: 'c', name: 'codemode', input: { code } }] }, { text: 'done' }])
    const journal = new Map<string, unknown>()

    const first: string[] = []
    const recorded = script()
    const lookup = lookupTool()
    await createAgent({ provider: recorded, tools: { lookup: lookup.def }, behavior: { codemode: true }, effects: journaling(journal, first) }).run({ prompt: 'go' })
    expect(first).toEqual(['c', 'c.1', 'c.2', 'c.3'])
    expect(lookup.runs()).toBe(3)

    const again: string[] = []
    const replayed = script()
    const replayLookup = lookupTool()
    await createAgent({ provider: replayed, tools: { lookup: replayLookup.def }, behavior: { codemode: true }, effects: journaling(journal, again) }).run({ prompt: 'go' })
    expect(again).toEqual([])
    expect(replayLookup.runs()).toBe(0)
    const result = (turns: typeof recorded) => JSON.stringify(turns.requests[1].messages.at(-1)!.content)
    expect(result(replayed)).toContain('Returned: 60')
    expect(result(recorded)).toContain('Returned: 60')
  })
})
