import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { bundleChildScript } from '../support/child-bundle'

// Two processes on one file store: the first suspends on a call that needs approval and exits; the second,
// a new agent on the same session, records the decision and continues the run.

const exec = promisify(execFile)

describe('approval across processes', () => {
  let workDir: string
  let childScript: string
  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'zidane-approval-'))
    childScript = await bundleChildScript('approval-child', workDir)
  })
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true })
  })

  async function child(...args: string[]) {
    const { stdout } = await exec(process.execPath, [childScript, ...args])
    return JSON.parse(stdout) as Record<string, any>
  }

  it('one process suspends, another approves and continues: the tool runs there, once', async () => {
    const dir = join(workDir, 'approve')
    const first = await child(dir, 'deploys', 'suspend')
    expect(first).toMatchObject({ stopReason: 'suspended', suspended: true, pending: [{ callId: 'call-deploy', name: 'deploy', input: { tag: 'v2.1.0' } }] })

    // Between the processes, the session on disk holds the pending approval and a paired placeholder.
    const stored = await loadSession('deploys', { store: createFileStore({ dir }) })
    expect(stored.runs.at(-1)).toMatchObject({ stopReason: 'suspended', state: { version: 2, approvals: [{ callId: 'call-deploy' }] } })
    expect(stored.turns.at(-1)!.content).toMatchObject([{ type: 'tool_result', callId: 'call-deploy', metadata: { approval: 'pending' } }])

    const second = await child(dir, 'deploys', 'approve', 'call-deploy', 'release window open')
    expect(second.pid).not.toBe(first.pid)
    expect(second).toMatchObject({ stopReason: 'completed', pendingBefore: ['call-deploy'] })
    expect(second.results).toEqual([expect.objectContaining({ callId: 'call-deploy', output: 'deployed v2.1.0' })])
    expect(await readFile(join(dir, 'deployed.log'), 'utf8')).toBe(`v2.1.0 ${second.pid}\n`)

    // The decision is on the record; the superseding turn replaced the placeholder for every later reader.
    const after = await loadSession('deploys', { store: createFileStore({ dir }) })
    const suspended = after.runs.find(run => run.stopReason === 'suspended')!
    expect(suspended.state!.approvals![0].decision).toMatchObject({ approved: true, reason: 'release window open' })
    const superseding = after.turns.find(turn => turn.supersedes !== undefined)!
    expect(superseding.content).toMatchObject([{ callId: 'call-deploy', metadata: { approval: { approved: true, reason: 'release window open' } } }])
  })

  it('a denial from the second process reaches the model with its reason; the tool never runs', async () => {
    const dir = join(workDir, 'deny')
    await child(dir, 'deploys', 'suspend')
    const second = await child(dir, 'deploys', 'deny', 'call-deploy', 'freeze until Monday')
    expect(second.results).toEqual([expect.objectContaining({ callId: 'call-deploy', isError: true, output: 'Blocked: the call was denied: freeze until Monday' })])
    await expect(readFile(join(dir, 'deployed.log'), 'utf8')).rejects.toThrow()
  })
})
