import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { scriptedProvider } from '../../src/testing'

describe('agent loop smoke', () => {
  it('runs a tool loop and pairs results', async () => {
    const add = tool({
      name: 'add',
      description: 'Add two numbers',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    })
    const provider = scriptedProvider([
      { text: 'Let me add.', toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] },
      { text: 'The sum is 5.' },
    ])
    const agent = createAgent({ provider, tools: { add } })
    const stats = await agent.run({ prompt: 'What is 2+3?' })
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('The sum is 5.')
    expect(stats.turns).toBe(2)
    expect(stats.totalIn).toBe(20)
    const second = provider.requests[1]
    expect(second.messages.map(m => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(second.messages[2].content[0]).toMatchObject({ type: 'tool_result', output: '5' })
  })
})
