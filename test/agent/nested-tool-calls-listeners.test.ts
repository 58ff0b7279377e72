import type { ToolDef } from '../../src'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { processWarnings } from '../support/child-runs'
import { runCodemode } from '../tools/codemode/helpers'

// Many nested calls in flight at once are a tool's (or a script's) ordinary work: each used to add a listener to
// the caller's signal, and more than ten at once printed Node's MaxListenersExceededWarning.

const { list: warningsSoFar, settle } = processWarnings()
const listenerWarnings = () => warningsSoFar().filter(warning => warning.name === 'MaxListenersExceededWarning')

/** `wait {}`: answers after a few milliseconds, as an I/O tool does; aborted, it says so. */
const wait: ToolDef = {
  spec: { name: 'wait', description: 'Waits a little.', inputSchema: { type: 'object' } },
  isConcurrencySafe: true,
  execute: (_input, ctx) => new Promise<string>((resolve) => {
    const timer = setTimeout(resolve, 20, 'waited')
    ctx.signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve('aborted')
    }, { once: true })
  }),
}

describe('nested calls in flight at once', () => {
  it('a tool with 40 nested calls in flight prints no listener warning', async () => {
    let outputs: unknown[] = []
    const fan: ToolDef = {
      spec: { name: 'fan', description: 'Calls wait 40 times at once.', inputSchema: { type: 'object' } },
      async execute(_input, ctx) {
        outputs = (await Promise.all(Array.from({ length: 40 }, (_, i) => ctx.callTool('wait', { i })))).map(result => result.output)
        return 'fanned'
      },
    }
    const provider = scriptedProvider([{ toolCalls: [{ id: 'call_f', name: 'fan', input: {} }] }, { text: 'done' }])
    const stats = await createAgent({ provider, tools: { fan, wait } }).run({ prompt: 'go' })
    await settle()
    expect(stats.stopReason).toBe('completed')
    expect(outputs).toEqual(Array.from({ length: 40 }).fill('waited'))
    expect(listenerWarnings()).toEqual([])
  })

  it('an abort still reaches every nested call in flight', async () => {
    let outputs: unknown[] = []
    let heard = 0
    const slow: ToolDef = {
      spec: { name: 'slow', description: 'Waits until aborted.', inputSchema: { type: 'object' } },
      isConcurrencySafe: true,
      execute: (_input, ctx) => new Promise<string>((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          heard++
          resolve('aborted')
        }, { once: true })
      }),
    }
    const agent = createAgent({
      provider: scriptedProvider([{ toolCalls: [{ id: 'call_f', name: 'fan', input: {} }] }, { text: 'done' }]),
      tools: {
        slow,
        fan: {
          spec: { name: 'fan', description: 'Calls slow 20 times at once.', inputSchema: { type: 'object' } },
          async execute(_input, ctx) {
            const all = Promise.all(Array.from({ length: 20 }, (_, i) => ctx.callTool('slow', { i })))
            setTimeout(() => agent.abort(), 20)
            outputs = (await all).map(result => result.output)
            return 'fanned'
          },
        },
      },
    })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('aborted')
    await settle()
    expect(outputs).toHaveLength(20)
    expect(heard).toBe(20)
    expect(new Set(outputs)).toEqual(new Set(['Aborted: the run was cancelled while this tool was running.']))
    expect(listenerWarnings()).toEqual([])
  })

  it('a codemode script with sixteen calls in flight prints no listener warning', async () => {
    const { text } = await runCodemode('const r = await Promise.all(Array.from({ length: 16 }, () => tools.wait({}))); return r.length', { tools: { wait } })
    await settle()
    expect(text).toBe('Returned: 16')
    expect(listenerWarnings()).toEqual([])
  })
})
