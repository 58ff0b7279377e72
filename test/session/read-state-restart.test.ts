import type { ToolResultBlock } from '../../src/core/content'
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile as readText, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { createSession, loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'
import { edit } from '../../src/tools'

// What the model has read belongs to the session, and is saved with the run state: a process killed with
// SIGKILL after a read leaves a session whose next run, in another process, may edit that file without reading it again.

const childScript = fileURLToPath(new URL('../support/read-state-child.ts', import.meta.url))
let workDir: string

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'zidane-read-state-'))
})

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true })
})

/** Run the child until it says the read is done, then kill it with SIGKILL; resolves once it is gone. */
function readThenKill(storeDir: string, sessionId: string, workspace: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, storeDir, sessionId, workspace], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('read-done'))
        child.kill('SIGKILL')
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited with ${code}: ${output}`)))
  })
}

/** A workspace with `config.txt`, and a file-store session whose first run read it and was then killed. */
async function crashedAfterRead(name: string) {
  const storeDir = join(workDir, name, 'sessions')
  const workspace = join(workDir, name, 'workspace')
  await mkdir(workspace, { recursive: true })
  await writeFile(join(workspace, 'config.txt'), 'retries = 1\n')
  const session = await createSession({ store: createFileStore({ dir: storeDir }) })
  await readThenKill(storeDir, session.id, workspace)
  // A fresh handle in this process: nothing of the child's memory, only what its store kept.
  return { workspace, loaded: await loadSession(session.id, { store: createFileStore({ dir: storeDir }) }) }
}

describe('read state across a kill -9', () => {
  it('a run cut off by a crash and continued keeps its turn count, and may edit what it had read', async () => {
    const { workspace, loaded } = await crashedAfterRead('continue')
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'edit', input: { path: 'config.txt', old_string: 'retries = 1', new_string: 'retries = 2' }, id: 'edit-1' }] },
      { toolCalls: [{ name: 'edit', input: { path: 'config.txt', old_string: 'retries = 2', new_string: 'retries = 3' }, id: 'edit-2' }] },
      { toolCalls: [{ name: 'edit', input: { path: 'config.txt', old_string: 'retries = 3', new_string: 'retries = 4' }, id: 'edit-3' }] },
    ])
    const execution = createProcessContext({ cwd: workspace })
    try {
      const agent = createAgent({ provider, tools: { edit }, execution, session: loaded, behavior: { requireReadBeforeEdit: true, maxTurns: 3 } })
      // No prompt: the continuation of the run the crash cut off, which had taken 1 of its 3 turns.
      const stats = await agent.run()
      expect(stats).toMatchObject({ stopReason: 'max-turns', turns: 2 })
    }
    finally {
      await execution.destroy()
    }
    expect(await readText(join(workspace, 'config.txt'), 'utf8')).toBe('retries = 3\n')
  })

  it('requireReadBeforeEdit: a file read before the crash can be edited after it without reading it again', async () => {
    const { workspace, loaded } = await crashedAfterRead('prompt')
    expect(loaded.runs.at(-1)).toMatchObject({ status: 'running' })
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'edit', input: { path: 'config.txt', old_string: 'retries = 1', new_string: 'retries = 3' }, id: 'edit-1' }] },
      { text: 'Raised the retries.' },
    ])
    const execution = createProcessContext({ cwd: workspace })
    try {
      const agent = createAgent({ provider, tools: { edit }, execution, session: loaded, behavior: { requireReadBeforeEdit: true } })
      await agent.run({ prompt: 'Now raise the retries to 3' })
    }
    finally {
      await execution.destroy()
    }
    const result = provider.requests[1].messages.at(-1)!.content[0] as ToolResultBlock
    expect(result.isError ?? false, String(result.output)).toBe(false)
    expect(await readText(join(workspace, 'config.txt'), 'utf8')).toBe('retries = 3\n')
  })
})
