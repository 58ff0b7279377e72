import type { ToolResultBlock } from '../../src/core/content'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scriptedProvider } from '../../src/testing'
import { edit } from '../../src/tools/edit'
import { multiEdit } from '../../src/tools/multi-edit'
import { readFile } from '../../src/tools/read-file'
import { writeFile } from '../../src/tools/write-file'
import { agentWith, fileBehavior, newSession, tempDirs, workspace } from './file-tools-support'

const tempDir = tempDirs('file-tools-agent')
const tools = { read_file: readFile, write_file: writeFile, edit, multi_edit: multiEdit }

describe('file tools in an agent run', () => {
  it('report their outcomes on tool:after, paired with isError, through the agent\'s execution context', async () => {
    const { dir, execution } = workspace(tempDir)
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'write_file', input: { path: 'notes.txt', content: 'draft\n' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'notes.txt', content: 'draft\n' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'notes.txt', content: 'final draft\n' } }] },
      { toolCalls: [{ name: 'edit', input: { path: 'notes.txt', old_string: 'final', new_string: 'last' } }] },
      { toolCalls: [{ name: 'edit', input: { path: 'notes.txt', old_string: 'missing', new_string: 'x' } }] },
      { toolCalls: [{ name: 'multi_edit', input: { path: 'notes.txt', edits: [{ old_string: 'last', new_string: 'first' }, { old_string: 'nope', new_string: 'x' }] } }] },
      { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
      { text: 'done' },
    ])
    const { agent, after } = agentWith({ provider, tools, execution })
    await agent.run({ prompt: 'go' })

    expect(after.map(a => [a.name, a.outcome, a.isError])).toEqual([
      ['write_file', 'created', false],
      ['write_file', 'noop', false],
      ['write_file', 'updated', false],
      ['edit', 'edited', false],
      ['edit', 'failed', true],
      ['multi_edit', 'failed', true],
      ['read_file', undefined, false],
    ])
    expect(after[4].result).toMatch(/^Error: old_string was not found in notes\.txt/)
    expect(after[6].result).toBe('1\tlast draft')
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('last draft\n')
  })

  it('dedups a repeated read only when the agent has a session', async () => {
    const { execution, put } = workspace(tempDir)
    put('a.txt', 'content\n')
    const script = () => [
      { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
      { text: 'done' },
    ]
    const withSession = agentWith({ provider: scriptedProvider(script()), tools, execution, session: await newSession() })
    await withSession.agent.run({ prompt: 'go' })
    expect(withSession.after[1].result).toMatch(/^\[a\.txt is unchanged since your last read_file/)

    const without = agentWith({ provider: scriptedProvider(script()), tools, execution })
    await without.agent.run({ prompt: 'go' })
    expect(without.after[1].result).toBe('1\tcontent')
  })

  it('requireReadBeforeEdit holds across runs of the same session', async () => {
    const { execution, put } = workspace(tempDir)
    put('b.txt', 'value = 1\n')
    const session = await newSession()
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'edit', input: { path: 'b.txt', old_string: 'value = 1', new_string: 'value = 2' } }] },
      { text: 'refused' },
      { toolCalls: [{ name: 'read_file', input: { path: 'b.txt' } }] },
      { text: 'read it' },
      { toolCalls: [{ name: 'edit', input: { path: 'b.txt', old_string: 'value = 1', new_string: 'value = 2' } }] },
      { text: 'edited' },
    ])
    const { agent, after } = agentWith({ provider, tools, execution, session, behavior: fileBehavior({ requireReadBeforeEdit: true }) })
    await agent.run({ prompt: 'edit' })
    await agent.run({ prompt: 'read' })
    await agent.run({ prompt: 'edit again' })
    expect(after.map(a => a.outcome)).toEqual(['failed', undefined, 'edited'])
    const firstResult = provider.requests[1].messages.at(-1)!.content[0] as ToolResultBlock
    expect(firstResult.isError).toBe(true)
    expect(firstResult.output).toMatch(/Refused: b\.txt has not been read in this session/)
  })
})
