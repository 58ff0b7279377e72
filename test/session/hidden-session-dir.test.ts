import type { ToolResultEvent } from '../../src'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { basic } from '../../src/presets'
import { createFileStore, createMemoryStore, createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'

// A session kept in a file store under the working directory is out of reach
// of the agent's own file tools: refused by path, left out of listings and
// searches, and refused in a shell command that names it.

let project = ''

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'zidane-hidden-'))
  await mkdir(join(project, 'src'))
  await writeFile(join(project, 'src/app.ts'), 'export const sessionMarker = 1\n')
})

afterEach(async () => {
  await rm(project, { recursive: true, force: true })
})

/** Calls each `[name, input]` in its own turn, then ends; returns the results the model read. */
async function play(calls: [string, Record<string, unknown>][], store = createFileStore({ dir: join(project, '.sessions') })) {
  const session = await createSession({ id: 'work', store })
  const agent = createAgent({
    provider: scriptedProvider([
      ...calls.map(([name, input], index) => ({ toolCalls: [{ id: `c${index}`, name, input }] })),
      { text: 'done' },
    ]),
    tools: basic.tools,
    execution: createProcessContext({ cwd: project }),
    session,
  })
  const results: ToolResultEvent[] = []
  for await (const event of agent.stream({ prompt: 'Look around.' })) {
    if (event.type === 'tool-result')
      results.push(event)
  }
  await agent.destroy()
  return results.map(result => ({ name: result.name, isError: result.isError, output: String(result.output) }))
}

describe('the session folder, hidden from the agent\'s file tools', () => {
  it('refuses to read, write, edit or list inside it, with a clear error', async () => {
    const results = await play([
      ['read_file', { path: '.sessions/work.jsonl' }],
      ['write_file', { path: '.sessions/work.jsonl', content: '{}' }],
      ['edit', { path: join(project, '.sessions/work.jsonl'), old_string: 'work', new_string: 'play' }],
      ['list_files', { path: '.sessions' }],
      ['grep', { pattern: 'sessionMarker', path: '.sessions' }],
    ])
    for (const result of results) {
      expect(result.isError, result.name).toBe(true)
      expect(result.output, result.name).toContain('inside this agent\'s session store (.sessions)')
    }
    // The log is intact: nothing was written over it.
    const log = await readFile(join(project, '.sessions/work.jsonl'), 'utf8')
    expect(log.split('\n')[0]).toContain('"work"')
  })

  it('leaves it out of listings and searches of the working directory', async () => {
    const results = await play([
      ['list_files', {}],
      ['glob', { pattern: '**/*.jsonl' }],
      ['grep', { pattern: 'sessionMarker' }],
    ])
    const [list, found, matches] = results
    expect(list!.output).toContain('src')
    expect(list!.output).not.toContain('.sessions')
    expect(found!.output).not.toContain('work.jsonl')
    // The session's log records the tool calls (the pattern included), yet the search finds only the source.
    expect(matches!.output).toContain('src/app.ts')
    expect(matches!.output).not.toContain('.sessions')
  })

  it('refuses a shell command that names it', async () => {
    const [result] = await play([['shell', { command: 'cat .sessions/work.jsonl' }]])
    expect(result).toMatchObject({ name: 'shell', isError: true })
    expect(result!.output).toContain('session store (.sessions)')
  })

  it('hides nothing for a session kept in memory', async () => {
    await mkdir(join(project, '.sessions'))
    await writeFile(join(project, '.sessions/notes.txt'), 'plain notes\n')
    const [read] = await play([['read_file', { path: '.sessions/notes.txt' }]], createMemoryStore())
    expect(read).toMatchObject({ isError: false })
    expect(read!.output).toContain('plain notes')
  })
})

// A symlink in the workspace that leads into the store passed the path check: the model could read its own
// log through `notes/…` and overwrite it. Paths are also compared once their symlinks are resolved (of the
// deepest part that exists, for a file not created yet).
describe('the hidden session store and symlinks', () => {
  it('refuses to read, write or search the store through a symlink in the workspace', async () => {
    mkdirSync(join(project, '.sessions'))
    writeFileSync(join(project, '.sessions/marker.txt'), 'sessionMarker\n')
    symlinkSync('.sessions', join(project, 'notes'))
    mkdirSync(join(project, 'deep'))
    symlinkSync('../.sessions/marker.txt', join(project, 'deep/link.txt'))
    const results = await play([
      ['read_file', { path: 'notes/marker.txt' }],
      ['read_file', { path: 'deep/link.txt' }],
      ['write_file', { path: 'notes/marker.txt', content: 'garbage\n' }],
      ['write_file', { path: 'notes/new-file.txt', content: 'garbage\n' }],
      ['edit', { path: 'deep/link.txt', old_string: 'sessionMarker', new_string: 'x' }],
      ['grep', { pattern: 'sessionMarker', path: 'notes' }],
    ])
    for (const result of results) {
      expect(result.isError, `${result.name}: ${result.output}`).toBe(true)
      expect(result.output, result.name).toContain('inside this agent\'s session store (.sessions)')
    }
    expect(readFileSync(join(project, '.sessions/marker.txt'), 'utf8')).toBe('sessionMarker\n')
  })

  it('still reads a file whose path merely starts like the store, and a link elsewhere', async () => {
    writeFileSync(join(project, 'plain.txt'), 'plain\n')
    symlinkSync('plain.txt', join(project, '.sessions-notes'))
    const [result] = await play([['read_file', { path: '.sessions-notes' }]])
    expect(result).toMatchObject({ isError: false })
    expect(result.output).toContain('plain')
  })
})
