import type { ExecutionContext } from '../../src/contexts'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { OperationTimeoutError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { shell } from '../../src/tools/shell'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'zidane-exec-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function probe(seen: ExecutionContext[]) {
  return {
    spec: { name: 'probe', description: 'probe', inputSchema: { type: 'object' } },
    execute: (_: unknown, ctx: { execution: ExecutionContext }) => {
      seen.push(ctx.execution)
      return 'ok'
    },
  }
}

/** A process context whose spawn or destroy never settles. */
function hanging(part: 'spawn' | 'destroy'): ExecutionContext {
  const inner = createProcessContext({ cwd: dir })
  return Object.assign(Object.create(inner) as ExecutionContext, { [part]: () => new Promise(() => {}) })
}

describe('the execution context', () => {
  it('is the one tools receive', async () => {
    const execution = createProcessContext({ cwd: dir })
    const seen: ExecutionContext[] = []
    const provider = scriptedProvider([{ toolCalls: [{ name: 'probe', input: {} }] }, { text: 'done' }])
    await createAgent({ provider, tools: { probe: probe(seen) }, execution }).run({ prompt: 'go' })
    expect(seen).toEqual([execution])
  })

  it('a first spawn that never settles fails the run after spawnTimeoutMs; 0 waits', async () => {
    const seen: ExecutionContext[] = []
    const agent = createAgent({ provider: scriptedProvider([{ text: 'never' }]), tools: { probe: probe(seen) }, execution: hanging('spawn'), behavior: { spawnTimeoutMs: 30 } })
    const error = await agent.run({ prompt: 'go' }).catch(e => e)
    expect(error).toBeInstanceOf(OperationTimeoutError)
    expect(error.operation).toBe('execution context spawn')

    const slow = createProcessContext({ cwd: dir })
    const started = Object.assign(Object.create(slow) as ExecutionContext, { spawn: () => new Promise<void>(resolve => setTimeout(resolve, 60)) })
    const patient = createAgent({ provider: scriptedProvider([{ text: 'ok' }]), tools: { probe: probe(seen) }, execution: started, behavior: { spawnTimeoutMs: 0 } })
    expect((await patient.run({ prompt: 'go' })).text).toBe('ok')
  })

  it('destroy() gives up on a teardown that never settles after destroyTimeoutMs', async () => {
    const agent = createAgent({ provider: scriptedProvider([]), execution: hanging('destroy'), behavior: { destroyTimeoutMs: 30 } })
    await agent.destroy()
    await expect(agent.run({ prompt: 'x' })).rejects.toThrow(/destroyed/)
  })
})

describe('shell per run', () => {
  it('offers background mode and the task tools only when tasksDir makes it available', async () => {
    const execution = createProcessContext({ cwd: dir })
    const withBackground = scriptedProvider([{ text: 'a' }])
    await createAgent({ provider: withBackground, tools: { shell }, execution, behavior: { tasksDir: join(dir, 'tasks') } }).run({ prompt: 'go' })
    const names = withBackground.requests[0].tools.map(t => t.name)
    expect(names).toEqual(['shell', 'wait_task', 'list_tasks', 'kill_task'])
    expect(JSON.stringify(withBackground.requests[0].tools[0].inputSchema)).toContain('run_in_background')

    const foregroundOnly = scriptedProvider([{ text: 'b' }])
    await createAgent({ provider: foregroundOnly, tools: { shell }, execution }).run({ prompt: 'go' })
    expect(foregroundOnly.requests[0].tools.map(t => t.name)).toEqual(['shell'])
    expect(JSON.stringify(foregroundOnly.requests[0].tools[0].inputSchema)).not.toContain('run_in_background')
  })

  it('a stalled background task fires background:stall and the model hears of it at its next turn', async () => {
    const execution = createProcessContext({ cwd: dir })
    const stalls: string[] = []
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'shell', input: { command: 'sleep 5', run_in_background: true } }] },
      // The model thinks long enough for the watchdog to notice the silent task.
      { delayMs: 600, toolCalls: [{ name: 'list_tasks', input: {} }] },
      { text: 'noted' },
    ])
    const agent = createAgent({
      provider,
      tools: { shell },
      execution,
      behavior: { tasksDir: join(dir, 'tasks'), backgroundStallWatchdogMs: 100 },
      hooks: { 'background:stall': ({ taskId }) => void stalls.push(taskId) },
    })
    await agent.run({ prompt: 'start it' })
    await agent.destroy()
    expect(stalls.length).toBeGreaterThan(0)
    const notice = JSON.stringify(provider.requests[2].messages.at(-1))
    expect(notice).toContain('has printed nothing')
  })
})
