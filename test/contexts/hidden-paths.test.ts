import type { ToolResultEvent } from '../../src'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { basic } from '../../src/presets'
import { createFileStore, createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { tempDirs } from './support'

// The session store is hidden from the file tools by comparing paths, and a symlink in the workspace that leads
// into it passed that check: the model could read its own log through `notes/…` and overwrite it. Paths are now
// compared after resolving symlinks too (of the deepest part that exists, for a file not created yet).

const tempDir = tempDirs('hidden-paths')

async function play(project: string, calls: [string, Record<string, unknown>][]) {
  const session = await createSession({ id: 'work', store: createFileStore({ dir: join(project, '.sessions') }) })
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

describe('the hidden session store and symlinks', () => {
  it('refuses to read, write or search the store through a symlink in the workspace', async () => {
    const project = tempDir()
    mkdirSync(join(project, '.sessions'))
    writeFileSync(join(project, '.sessions/marker.txt'), 'sessionMarker\n')
    symlinkSync('.sessions', join(project, 'notes'))
    mkdirSync(join(project, 'deep'))
    symlinkSync('../.sessions/marker.txt', join(project, 'deep/link.txt'))
    const results = await play(project, [
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
    const project = tempDir()
    writeFileSync(join(project, 'plain.txt'), 'plain\n')
    symlinkSync('plain.txt', join(project, '.sessions-notes'))
    const [result] = await play(project, [['read_file', { path: '.sessions-notes' }]])
    expect(result).toMatchObject({ isError: false })
    expect(result.output).toContain('plain')
  })
})
