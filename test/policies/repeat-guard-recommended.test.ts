import type { AgentBehavior, RepeatGuardExceededContext } from '../../src'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, recommendedRepeatGuard, tool } from '../../src'
import { scriptedProvider } from '../../src/testing'

// The recommended repeat guard through createAgent: a looping custom tool is
// caught with it, and not with the contract's defaults (which watch only
// shell and read_file).

/** A model that calls `search_docs` with the same query `times` times, then gives up. */
function loopingModel(times: number, tool = 'search_docs') {
  return scriptedProvider([
    ...Array.from({ length: times }, (_, index) => ({ toolCalls: [{ id: `c${index}`, name: tool, input: { query: 'retry policy' } }] })),
    { text: 'I could not find it.' },
  ])
}

async function play(behavior: AgentBehavior, times: number, tool = 'search_docs') {
  const ran: string[] = []
  const fired: RepeatGuardExceededContext[] = []
  const agent = createAgent({
    provider: loopingModel(times, tool),
    tools: { [tool]: searchTool(tool, ran) },
    behavior,
    hooks: { 'repeat-guard:exceeded': ctx => void fired.push(ctx) },
  })
  const stats = await agent.run({ prompt: 'Find the retry policy.' })
  await agent.destroy()
  return { stats, ran, fired }
}

function searchTool(name: string, ran: string[]) {
  return tool({
    name,
    description: 'Search the docs',
    input: z.object({ query: z.string() }),
    execute: ({ query }) => {
      ran.push(query)
      return 'no results'
    },
  })
}

describe('recommendedRepeatGuard', () => {
  it('the contract defaults let a custom tool loop ten times', async () => {
    const { stats, ran, fired } = await play({ repeatGuard: {} }, 10)
    expect(fired).toEqual([])
    expect(ran).toHaveLength(10)
    expect(stats.stopReason).toBe('completed')
  })

  it('the recommended guard refuses the 4th identical custom call and aborts the run at the 8th', async () => {
    const { stats, ran, fired } = await play({ repeatGuard: recommendedRepeatGuard() }, 10)
    expect(fired.map(event => [event.name, event.action, event.count])).toEqual([
      ['search_docs', 'block', 4],
      ['search_docs', 'block', 5],
      ['search_docs', 'block', 6],
      ['search_docs', 'block', 7],
      ['search_docs', 'abort', 8],
    ])
    expect(ran).toHaveLength(3)
    expect(stats.stopReason).toBe('aborted')
  })

  it('leaves the poll tools it is given alone', async () => {
    const { stats, ran, fired } = await play({ repeatGuard: recommendedRepeatGuard({ pollTools: ['job_status'] }) }, 15, 'job_status')
    expect(fired).toEqual([])
    expect(ran).toHaveLength(15)
    expect(stats.stopReason).toBe('completed')
  })
})
