import { describe, expect, it } from 'vitest'
import { createAgent } from '../../../src'
import { scriptedProvider } from '../../../src/testing'
import { runCodemode } from './helpers'

// The limits of a script: time, abort, memory, output. None of these waits
// on a timer to pass: each bound is far below the time the test allows.

describe('codemode limits', () => {
  it('agent.abort() stops a busy script without the host\'s event loop ever stalling', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ id: 'busy', name: 'codemode', input: { code: 'while (true) {}' } }] }, { text: 'never' }])
    const agent = createAgent({ provider, behavior: { codemode: { timeoutMs: 600_000 } } })
    let started = false
    let ticks = 0
    let longestGap = 0
    let last = Date.now()
    const interval = setInterval(() => {
      const now = Date.now()
      longestGap = Math.max(longestGap, now - last)
      last = now
      ticks++
    }, 5)
    agent.hooks.hook('tool:before', (ctx) => {
      if (ctx.name !== 'codemode')
        return
      started = true
      last = Date.now()
      ticks = 0
      longestGap = 0
      setTimeout(() => agent.abort(), 300)
    })
    const startedAt = Date.now()
    const stats = await agent.run({ prompt: 'go' })
    clearInterval(interval)
    expect(started).toBe(true)
    expect(stats.stopReason).toBe('aborted')
    // The script ran on another thread: the timer kept firing while it was busy.
    expect(ticks).toBeGreaterThan(10)
    // A VM on this thread would have held it until the abort could no longer fire; a loaded machine still stalls it a little.
    expect(longestGap).toBeLessThan(1000)
    expect(Date.now() - startedAt).toBeLessThan(5000)
  })

  it('agent.abort() stops a script that waits on a tool which ignores its signal', async () => {
    const stuck = { spec: { name: 'stuck', description: 'never answers', inputSchema: { type: 'object' } }, execute: () => new Promise<string>(() => {}) }
    const provider = scriptedProvider([{ toolCalls: [{ id: 'wait', name: 'codemode', input: { code: 'await tools.stuck({})' } }] }, { text: 'never' }])
    const agent = createAgent({ provider, tools: { stuck }, behavior: { codemode: { timeoutMs: 600_000 } } })
    agent.hooks.hook('tool:before', (ctx) => {
      if (ctx.name === 'stuck')
        setTimeout(() => agent.abort(), 100)
    })
    const startedAt = Date.now()
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('aborted')
    expect(Date.now() - startedAt).toBeLessThan(5000)
  })

  it('stops a busy script at its time limit, and the next script runs normally', async () => {
    const { text, result, results } = await runCodemode('while (true) {}', {
      behavior: { codemode: { timeoutMs: 200 } },
      after: [{ toolCalls: [{ id: 'next', name: 'codemode', input: { code: 'return 1 + 1' } }] }, { text: 'done' }],
    })
    expect(result.isError).toBe(true)
    expect(text).toBe('Error: the script was stopped by its time limit (200 ms).')
    expect(results.find(block => block.callId === 'next')!.output).toBe('Returned: 2')
  })

  it('stops a script waiting on a slow tool at its time limit, and cuts the tool', async () => {
    let aborted = false
    const slow = {
      spec: { name: 'slow', description: 'slow', inputSchema: { type: 'object' } },
      execute: (_input: unknown, ctx: { signal: AbortSignal }) => new Promise<string>((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = true
          resolve('cut')
        })
      }),
    }
    const startedAt = Date.now()
    const { text } = await runCodemode('await tools.slow({})\nreturn "late"', { tools: { slow }, behavior: { codemode: { timeoutMs: 200 } } })
    expect(text).toContain('stopped by its time limit (200 ms)')
    expect(aborted).toBe(true)
    expect(Date.now() - startedAt).toBeLessThan(5000)
  })

  it('caps a script\'s memory at memoryLimitBytes', async () => {
    const code = 'const parts = []; for (let i = 0; i < 64; i++) parts.push("x".repeat(1 << 20) + i); return parts.length'
    const small = await runCodemode(code, { behavior: { codemode: { memoryLimitBytes: 16 * 1024 * 1024 } } })
    expect(small.text).toContain('InternalError: out of memory (the script\'s memory limit is 16 MiB)')
    const large = await runCodemode(code, { behavior: { codemode: { memoryLimitBytes: 256 * 1024 * 1024 } } })
    expect(large.text).toBe('Returned: 64')
  })

  it('keeps printed output and the return value bounded', async () => {
    const { text } = await runCodemode('for (let i = 0; i < 100000; i++) console.log("line " + i)\nreturn "y".repeat(1e6)')
    expect(text.length).toBeLessThan(100_000)
    expect(text).toMatch(/\[\d+ more printed lines left out/)
    expect(text).toContain('[cut at 40000 characters]')
  })
})
