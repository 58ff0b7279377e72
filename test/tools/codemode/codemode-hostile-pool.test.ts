import type { ToolDef } from '../../../src'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../../src'
import { scriptedProvider } from '../../../src/testing'
import { SANDBOX_LIMITS } from '../../../src/tools/codemode'
import { runCodemode } from './helpers'

// The sandbox's worker pool when scripts are aborted before they run: while
// their worker starts, or while they wait for one. Each case used to leave a
// later script waiting until some other script's time limit (ten minutes
// here), so without the fix these tests do not finish. The first test needs
// the process's first scripts, which start their workers: keep it first.

/** Resolves once `check()` holds, looking again on each turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check())
    await new Promise(resolve => setTimeout(resolve, 5))
}

/** An agent whose model calls `codemode` with `code` once. */
function codemodeAgent(code: string, tools: Record<string, ToolDef> = {}) {
  const provider = scriptedProvider([{ toolCalls: [{ id: 'call_c', name: 'codemode', input: { code } }] }, { text: 'done' }])
  return createAgent({ provider, tools, behavior: { codemode: { timeoutMs: 600_000 } } })
}

describe('codemode against hostile scripts: the worker pool', () => {
  it('scripts aborted while their workers start give the workers back', async () => {
    // As many busy scripts as there can be workers, each aborted right after its call starts: the engine is still
    // compiling, or the worker starting, and neither can be interrupted. Their workers once ran `while (true) {}` anyway.
    const agents = Array.from({ length: SANDBOX_LIMITS.maxWorkers }, () => {
      const agent = codemodeAgent('while (true) {}')
      agent.hooks.hook('tool:before', () => {
        setImmediate(() => agent.abort())
      })
      return agent
    })
    const stats = await Promise.all(agents.map(agent => agent.run({ prompt: 'go' })))
    expect(stats.map(run => run.stopReason)).toEqual(agents.map(() => 'aborted'))
    await Promise.all(agents.map(agent => agent.destroy()))
    const { text } = await runCodemode('return 1 + 1')
    expect(text).toBe('Returned: 2')
  }, 30_000)

  it('a script aborted while it waits for a worker does not take the next worker freed', async () => {
    const releases: (() => void)[] = []
    const hold: ToolDef = {
      spec: { name: 'hold', description: 'Waits until the test lets it go.', inputSchema: { type: 'object' } },
      execute: () => new Promise<string>(resolve => releases.push(() => resolve('"released"'))),
    }
    // Every worker busy with a script waiting on `hold`.
    const holders: ReturnType<typeof codemodeAgent>[] = []
    for (let i = 0; i < SANDBOX_LIMITS.maxWorkers; i++)
      holders.push(codemodeAgent('return await tools.hold({})', { hold }))
    const held = holders.map(agent => agent.run({ prompt: 'go' }))
    await until(() => releases.length === SANDBOX_LIMITS.maxWorkers)

    // One script waits for a worker and is aborted.
    const aborted = codemodeAgent('return "never"')
    aborted.hooks.hook('tool:before', () => {
      setImmediate(() => aborted.abort())
    })
    expect((await aborted.run({ prompt: 'go' })).stopReason).toBe('aborted')

    // Another waits; one holder is let go, and its worker must go to the script still waiting.
    const waiting = codemodeAgent('return "ran"')
    let asked = false
    waiting.hooks.hook('tool:before', () => {
      asked = true
    })
    let answer: unknown
    waiting.hooks.hook('tool:after', (ctx) => {
      if (ctx.name === 'codemode')
        answer = ctx.result
    })
    const run = waiting.run({ prompt: 'go' })
    await until(() => asked)
    releases[0]()
    expect((await run).stopReason).toBe('completed')
    expect(answer).toBe('Returned: "ran"')

    for (const release of releases.slice(1))
      release()
    const stats = await Promise.all(held)
    expect(stats.map(one => one.stopReason)).toEqual(holders.map(() => 'completed'))
    await Promise.all([...holders, aborted, waiting].map(agent => agent.destroy()))
  }, 30_000)
})
