import type { ToolResultBlock } from '../../src/core/content'
import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { createMemoryToolStateStore } from '../../src/tool-state'
import { TODO_STATE_KEY, todoTools } from '../../src/tools/todo'

const write = (todos: Record<string, unknown>[]): ScriptedTurn => ({ toolCalls: [{ name: 'todowrite', input: { todos } }] })
const read: ScriptedTurn = { toolCalls: [{ name: 'todoread', input: {} }] }

/** Every tool result the model received, in order. */
function toolResults(provider: ReturnType<typeof scriptedProvider>): ToolResultBlock[] {
  return provider.requests.flatMap(request => request.messages.at(-1)!.content.filter((block): block is ToolResultBlock => block.type === 'tool_result'))
}

describe('todowrite / todoread', () => {
  it('keeps the list in tool state across two runs of one agent', async () => {
    const provider = scriptedProvider([
      write([{ content: 'Write tests', status: 'completed' }, { content: 'Fix the bug', status: 'in_progress' }, { id: 'docs', content: 'Update docs', status: 'pending' }]),
      { text: 'first run done' },
      read,
      { text: 'second run done' },
    ])
    const agent = createAgent({ provider, tools: todoTools })
    await agent.run({ prompt: 'plan' })
    await agent.run({ prompt: 'where are we?' })
    const results = toolResults(provider)
    const expected = [
      'Todos: 1/3 completed, 1 in progress, 1 pending',
      '[x] 1. Write tests',
      '[>] 2. Fix the bug',
      '[ ] docs. Update docs',
    ].join('\n')
    expect(results.map(result => result.output)).toEqual([expected, expected])
    expect(agent.toolState.get(TODO_STATE_KEY)).toEqual([
      { id: '1', content: 'Write tests', status: 'completed' },
      { id: '2', content: 'Fix the bug', status: 'in_progress' },
      { id: 'docs', content: 'Update docs', status: 'pending' },
    ])
  })

  it('persists through a tool-state store, so a new agent on the same store reads the list', async () => {
    const store = createMemoryToolStateStore()
    const first = scriptedProvider([write([{ content: 'Ship it', status: 'pending' }]), { text: 'ok' }])
    await createAgent({ provider: first, tools: todoTools, toolState: store }).run({ prompt: 'go' })
    const second = scriptedProvider([read, { text: 'ok' }])
    await createAgent({ provider: second, tools: todoTools, toolState: store }).run({ prompt: 'go' })
    expect(toolResults(second)[0].output).toBe('Todos: 0/1 completed, 0 in progress, 1 pending\n[ ] 1. Ship it')
  })

  it('refuses two items in progress and keeps the previous list', async () => {
    const provider = scriptedProvider([
      write([{ content: 'A', status: 'in_progress' }]),
      write([{ content: 'A', status: 'in_progress' }, { content: 'B', status: 'in_progress' }]),
      read,
      { text: 'done' },
    ])
    await createAgent({ provider, tools: todoTools }).run({ prompt: 'go' })
    const [, refused, after] = toolResults(provider)
    expect(refused.isError).toBe(true)
    expect(refused.output).toMatch(/2 items are in_progress; at most one may be/)
    expect(after.output).toBe('Todos: 0/1 completed, 1 in progress, 0 pending\n[>] 1. A')
  })

  it('refuses duplicate ids, empty content and unknown statuses', async () => {
    const provider = scriptedProvider([
      write([{ id: 'x', content: 'A', status: 'pending' }, { id: 'x', content: 'B', status: 'pending' }]),
      write([{ content: '  ', status: 'pending' }]),
      write([{ content: 'A', status: 'done' }]),
      read,
      { text: 'done' },
    ])
    await createAgent({ provider, tools: todoTools }).run({ prompt: 'go' })
    const [dupes, blank, badStatus, after] = toolResults(provider)
    expect(dupes.output).toMatch(/the id "x" is used more than once/)
    expect(blank.output).toMatch(/todos\.0\.content/)
    expect(badStatus.output).toMatch(/todos\.0\.status/)
    expect([dupes, blank, badStatus].every(result => result.isError)).toBe(true)
    expect(after.output).toBe('The todo list is empty.')
  })

  it('keeps an item\'s id when it is rewritten without one, and clears the list on an empty write', async () => {
    const provider = scriptedProvider([
      write([{ content: 'A', status: 'pending' }, { content: 'B', status: 'pending' }]),
      write([{ content: 'New first', status: 'pending' }, { content: 'B', status: 'completed' }]),
      write([]),
      { text: 'done' },
    ])
    await createAgent({ provider, tools: todoTools }).run({ prompt: 'go' })
    const [, rewritten, cleared] = toolResults(provider)
    expect(rewritten.output).toBe('Todos: 1/2 completed, 0 in progress, 1 pending\n[ ] 3. New first\n[x] 2. B')
    expect(cleared.output).toBe('The todo list is empty.')
  })

  it('reads a malformed stored value as an empty list', async () => {
    const provider = scriptedProvider([read, { text: 'done' }])
    const toolState = createMemoryToolStateStore({ initial: { [TODO_STATE_KEY]: [{ content: 'no id or status' }] } })
    await createAgent({ provider, tools: todoTools, toolState }).run({ prompt: 'go' })
    expect(toolResults(provider)[0].output).toBe('The todo list is empty.')
  })
})

describe('todowrite against hostile items', () => {
  it('keeps each item on its own line of the list: ids with line breaks are refused, text with them shown on one line', async () => {
    const provider = scriptedProvider([
      write([{ id: '1\n[x] 2', content: 'Forged', status: 'pending' }]),
      write([{ content: 'Fix the bug\n[x] 9. Ship it', status: 'pending' }]),
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: todoTools })
    await agent.run({ prompt: 'plan' })
    const [refused, written] = toolResults(provider)
    expect(refused.isError).toBe(true)
    expect(String(refused.output)).toContain('an id may not hold line breaks or control characters')
    expect(written.output).toBe('Todos: 0/1 completed, 0 in progress, 1 pending\n[ ] 1. Fix the bug [x] 9. Ship it')
  })

  it('refuses an item of a megabyte or an id past 64 characters, leaving the list as it was', async () => {
    const provider = scriptedProvider([
      write([{ content: 'x'.repeat(1_000_000), status: 'pending' }]),
      write([{ id: 'i'.repeat(65), content: 'Fine', status: 'pending' }]),
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: todoTools })
    await agent.run({ prompt: 'plan' })
    const results = toolResults(provider)
    expect(results.map(result => result.isError)).toEqual([true, true])
    expect(results.every(result => String(result.output).length < 2000)).toBe(true)
    expect(agent.toolState.get(TODO_STATE_KEY)).toBeUndefined()
  })
})
