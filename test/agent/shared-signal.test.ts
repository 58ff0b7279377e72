import type { AgentStats } from '../../src'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { processWarnings } from '../support/child-runs'
import { echoTool } from '../support/helpers'

// Many concurrent runs on one caller signal is normal load for a server; the
// library must not print Node's listener-leak warning for it.

const { list: warningsSoFar, settle } = processWarnings()

describe('one caller AbortSignal shared by many runs', () => {
  it('300 concurrent runs print no MaxListenersExceededWarning, and all complete', async () => {
    const caller = new AbortController()
    const runs = Array.from({ length: 300 }, (_, i) => createAgent({
      provider: scriptedProvider([{ toolCalls: [{ name: 'echo', input: { i } }], delayMs: 5 }, { text: `done ${i}` }]),
      tools: { echo: echoTool('echo') },
    }).run({ prompt: 'go', signal: caller.signal }))
    const stats = await Promise.all(runs)
    await settle()
    expect(stats.map(s => s.stopReason)).toEqual(Array.from({ length: 300 }).fill('completed'))
    expect(warningsSoFar().filter(w => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })

  it('still aborts every run in flight when the caller aborts', async () => {
    const caller = new AbortController()
    const runs: Promise<AgentStats>[] = []
    for (let i = 0; i < 50; i++)
      runs.push(createAgent({ provider: scriptedProvider([{ text: 'slow', delayMs: 5_000 }]) }).run({ prompt: 'go', signal: caller.signal }))
    setTimeout(() => caller.abort(), 20)
    const stats = await Promise.all(runs)
    await settle()
    expect(new Set(stats.map(s => s.stopReason))).toEqual(new Set(['aborted']))
    expect(warningsSoFar().filter(w => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })

  it('runs that ended leave no listener behind: later concurrent runs on the same signal still abort', async () => {
    const caller = new AbortController()
    for (let i = 0; i < 20; i++)
      await createAgent({ provider: scriptedProvider([{ text: 'ok' }]) }).run({ prompt: 'go', signal: caller.signal })
    const late: Promise<AgentStats>[] = []
    for (let i = 0; i < 15; i++)
      late.push(createAgent({ provider: scriptedProvider([{ text: 'slow', delayMs: 5_000 }]) }).run({ prompt: 'go', signal: caller.signal }))
    setTimeout(() => caller.abort(), 20)
    expect(new Set((await Promise.all(late)).map(s => s.stopReason))).toEqual(new Set(['aborted']))
    await settle()
    expect(warningsSoFar().filter(w => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })

  it('ten tools in parallel on one run print no warning either', async () => {
    const calls = Array.from({ length: 10 }, (_, i) => ({ name: 'wait', input: { i } }))
    const waitTool = {
      ...echoTool('wait'),
      isConcurrencySafe: true,
      execute: (_input: unknown, ctx: { signal: AbortSignal }) => new Promise<string>((resolve) => {
        const timer = setTimeout(resolve, 20, 'waited')
        ctx.signal.addEventListener('abort', () => clearTimeout(timer), { once: true })
      }),
    }
    const stats = await createAgent({ provider: scriptedProvider([{ toolCalls: calls }, { text: 'ok' }]), tools: { wait: waitTool } }).run({ prompt: 'go' })
    await settle()
    expect(stats.stopReason).toBe('completed')
    expect(warningsSoFar().filter(w => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })
})
