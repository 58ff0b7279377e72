import type { AgentBehavior } from '../../src/knobs/behavior'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { blocksExistingWrite } from '../../src/policies/write-file-existing-policy'
import { scriptedProvider } from '../../src/testing'
import { writeFile } from '../../src/tools/write-file'
import { agentWith, fileBehavior, tempDirs, workspace } from './file-tools-support'

const tempDir = tempDirs('write-existing')

async function attempt(behavior: AgentBehavior, path = 'existing.txt') {
  const { dir, execution, put } = workspace(tempDir)
  put('existing.txt', 'original\n')
  put('gen/out.txt', 'original\n')
  const { agent, after } = agentWith({
    provider: scriptedProvider([
      { toolCalls: [{ name: 'write_file', input: { path, content: 'replaced\n' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'brand-new.txt', content: 'new\n' } }] },
      { text: 'done' },
    ]),
    tools: { write_file: writeFile },
    execution,
    behavior,
  })
  await agent.run({ prompt: 'go' })
  return { after, content: readFileSync(join(dir, path), 'utf8'), created: readFileSync(join(dir, 'brand-new.txt'), 'utf8') }
}

describe('writeFileExistingPolicy', () => {
  it('\'allow\' (the default) lets write_file replace an existing file', async () => {
    const run = await attempt({})
    expect(run.after[0].outcome).toBe('updated')
    expect(run.content).toBe('replaced\n')
  })

  it('\'block-with-edit-recipe\' refuses with a read_file + edit recipe, and still allows new files', async () => {
    const run = await attempt(fileBehavior({ writeFileExistingPolicy: 'block-with-edit-recipe' }))
    expect(run.after[0].isError).toBe(true)
    expect(run.after[0].result).toMatch(/^Blocked: existing\.txt already exists, .*1\) call read_file on existing\.txt; 2\) apply your changes with edit .* or multi_edit/)
    expect(run.content).toBe('original\n')
    expect(run.after[1].outcome).toBe('created')
    expect(run.created).toBe('new\n')
  })

  it('allowPaths exempt matching paths; denyPaths block even in allow mode', async () => {
    const allowed = await attempt(fileBehavior({ writeFileExistingPolicy: { mode: 'block-with-edit-recipe', allowPaths: ['gen/**'] } }), 'gen/out.txt')
    expect(allowed.after[0].outcome).toBe('updated')
    const denied = await attempt(fileBehavior({ writeFileExistingPolicy: { denyPaths: ['*.txt'] } }))
    expect(denied.after[0].result).toMatch(/^Blocked: /)
    expect(denied.content).toBe('original\n')
  })

  it('decides deny over allow over mode (pure)', () => {
    expect(blocksExistingWrite({ mode: 'block-with-edit-recipe', allowPaths: ['a/**'], denyPaths: ['a/secret.txt'] }, ['a/secret.txt'])).toBe(true)
    expect(blocksExistingWrite({ mode: 'block-with-edit-recipe', allowPaths: ['a/**'] }, ['a/x.txt'])).toBe(false)
    expect(blocksExistingWrite({ mode: 'block-with-edit-recipe' }, ['b.txt'])).toBe(true)
    expect(blocksExistingWrite({ allowPaths: ['x'] }, ['b.txt'])).toBe(false)
    expect(blocksExistingWrite('allow', ['b.txt'])).toBe(false)
  })
})
