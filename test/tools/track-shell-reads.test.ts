import type { ScriptedTurn } from '../../src/testing'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseShellReads } from '../../src/policies/shell-read-parser'
import { scriptedProvider } from '../../src/testing'
import { edit } from '../../src/tools/edit'
import { readFile } from '../../src/tools/read-file'
import { readStateOf } from '../../src/tools/read-state'
import { shell } from '../../src/tools/shell'
import { agentWith, fileBehavior, newSession, tempDirs, workspace } from './file-tools-support'

const tempDir = tempDirs('track-shell-reads')
const tools = { shell, read_file: readFile, edit }

describe('parseShellReads', () => {
  it('recognizes plain reads joined by && or ;, with an optional leading cd', () => {
    expect(parseShellReads('cat a.txt')).toEqual({ files: ['a.txt'] })
    expect(parseShellReads('cat -n a.txt b.txt')).toEqual({ files: ['a.txt', 'b.txt'] })
    expect(parseShellReads('cd src && head -n 20 a.ts; tail -5 b.ts && nl -ba c.ts')).toEqual({ cwd: 'src', files: ['a.ts', 'b.ts', 'c.ts'] })
    expect(parseShellReads('sed -n \'1,40p\' "my file.ts"')).toEqual({ files: ['my file.ts'] })
    expect(parseShellReads('tail -n +3 log.txt')).toEqual({ files: ['log.txt'] })
  })

  it('records nothing for pipes, redirects, substitutions, globs, other commands or flags it does not know', () => {
    for (const command of [
      'cat a.txt | head',
      'cat a.txt > b.txt',
      'cat $(ls)',
      'cat `ls`',
      'cat "$HOME/x"',
      'cat *.ts',
      'cat a.txt || true',
      'cat a.txt &',
      'cat a.txt && rm a.txt',
      'sed -i s/a/b/ a.txt',
      'sed -n \'s/a/b/p\' a.txt',
      'tail -f a.log',
      'cat',
      'cd src',
      'ls && cat a.txt',
      'cat a.txt && cd b && cat c.txt',
    ])
      expect(parseShellReads(command), command).toBeUndefined()
  })
})

function script(...turns: ScriptedTurn[]): ScriptedTurn[] {
  return [...turns, { text: 'done' }]
}

describe('trackShellReads (policy, through an agent run)', () => {
  const editCall = (path: string) => ({ toolCalls: [{ name: 'edit', input: { path, old_string: 'old', new_string: 'new' } }] })

  it('a file shown by cat counts as read for requireReadBeforeEdit', async () => {
    const { execution, put } = workspace(tempDir)
    put('sub/a.txt', 'old\n')
    const session = await newSession()
    const { agent, after } = agentWith({
      provider: scriptedProvider(script({ toolCalls: [{ name: 'shell', input: { command: 'cd sub && cat a.txt' } }] }, editCall('sub/a.txt'))),
      tools,
      execution,
      session,
      behavior: fileBehavior({ requireReadBeforeEdit: true }),
    })
    await agent.run({ prompt: 'go' })
    expect(after.map(a => [a.name, a.outcome])).toEqual([['shell', undefined], ['edit', 'edited']])
    expect(readStateOf(session).get(join(execution.cwd, 'sub/a.txt'))?.source).toBe('edit')
  })

  it('trackShellReads: false, a piped command, or a failing command leaves the file unread', async () => {
    const cases = [
      { command: 'cat a.txt', behavior: { requireReadBeforeEdit: true, trackShellReads: false } },
      { command: 'cat a.txt | cat', behavior: { requireReadBeforeEdit: true } },
      { command: 'cat a.txt && false', behavior: { requireReadBeforeEdit: true } },
    ]
    for (const { command, behavior } of cases) {
      const { execution, put } = workspace(tempDir)
      put('a.txt', 'old\n')
      const { agent, after } = agentWith({
        provider: scriptedProvider(script({ toolCalls: [{ name: 'shell', input: { command } }] }, editCall('a.txt'))),
        tools,
        execution,
        session: await newSession(),
        behavior: fileBehavior(behavior),
      })
      await agent.run({ prompt: 'go' })
      expect(after[1].outcome, command).toBe('failed')
      expect(after[1].result, command).toMatch(/has not been read in this session/)
    }
  })

  it('shell entries are never deduped against: a later read_file returns the content', async () => {
    const { execution, put } = workspace(tempDir)
    put('a.txt', 'old\n')
    const session = await newSession()
    const { agent, after } = agentWith({
      provider: scriptedProvider(script(
        { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'shell', input: { command: 'cat a.txt' } }] },
        { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
      )),
      tools,
      execution,
      session,
      behavior: fileBehavior({ requireReadBeforeEdit: true }),
    })
    await agent.run({ prompt: 'go' })
    expect(after[2].result).toBe('1\told')
  })

  it('names the shell command that changed a file when an edit is refused again for drift', async () => {
    const { execution, put } = workspace(tempDir)
    put('a.txt', 'old\n')
    const rewrite = 'printf "rewritten\\n" > a.txt'
    const { agent, after } = agentWith({
      provider: scriptedProvider(script(
        { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'shell', input: { command: rewrite } }] },
        editCall('a.txt'),
        editCall('a.txt'),
      )),
      tools,
      execution,
      session: await newSession(),
      behavior: fileBehavior({ requireReadBeforeEdit: true }),
    })
    await agent.run({ prompt: 'go' })
    expect(after[2].result).toMatch(/^Error: Refused: a\.txt has changed since you last read it/)
    expect(after[3].result).toContain(`The likely writer is the shell command you ran after your last read: \`${rewrite}\`.`)
  })
})
