import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgent } from '../../src'
import { delay, MAX_TIMER_DELAY_MS, startTimer, timeoutSignal } from '../../src/core/timer'
import { anthropic } from '../../src/providers/anthropic'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { echoTool, wait } from '../support/helpers'

afterEach(() => {
  vi.useRealTimers()
})

const BEYOND_32_BITS = 2 ** 31 + 5

describe('startTimer', () => {
  it('waits the whole delay when it is longer than one setTimeout can hold', async () => {
    vi.useFakeTimers()
    const fired: number[] = []
    const started = Date.now()
    startTimer(BEYOND_32_BITS, () => fired.push(Date.now() - started))
    // What a bare setTimeout does with that delay: it runs after 1 ms.
    await vi.advanceTimersByTimeAsync(1_000)
    expect(fired).toEqual([])
    await vi.advanceTimersByTimeAsync(MAX_TIMER_DELAY_MS - 1_000)
    expect(fired).toEqual([])
    await vi.advanceTimersByTimeAsync(BEYOND_32_BITS - MAX_TIMER_DELAY_MS - 1)
    expect(fired).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(fired).toEqual([BEYOND_32_BITS])
  })

  it('never fires for an infinite delay, and fires at once for a negative or NaN one', async () => {
    vi.useFakeTimers()
    const fired: string[] = []
    startTimer(Number.POSITIVE_INFINITY, () => fired.push('infinite'))
    startTimer(-5, () => fired.push('negative'))
    startTimer(Number.NaN, () => fired.push('nan'))
    await vi.advanceTimersByTimeAsync(0)
    expect(fired).toEqual(['negative', 'nan'])
    await vi.advanceTimersByTimeAsync(10 * MAX_TIMER_DELAY_MS)
    expect(fired).toEqual(['negative', 'nan'])
  })

  it('clear stops it between the steps of a long delay', async () => {
    vi.useFakeTimers()
    let fired = false
    const timer = startTimer(BEYOND_32_BITS, () => {
      fired = true
    })
    await vi.advanceTimersByTimeAsync(MAX_TIMER_DELAY_MS + 1)
    timer.clear()
    await vi.advanceTimersByTimeAsync(BEYOND_32_BITS)
    expect(fired).toBe(false)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('refresh starts the whole delay again, also after it fired, but not after clear', async () => {
    vi.useFakeTimers()
    let fired = 0
    const timer = startTimer(100, () => {
      fired++
    })
    await vi.advanceTimersByTimeAsync(60)
    timer.refresh()
    await vi.advanceTimersByTimeAsync(60)
    expect(fired).toBe(0)
    await vi.advanceTimersByTimeAsync(40)
    expect(fired).toBe(1)
    timer.refresh()
    await vi.advanceTimersByTimeAsync(100)
    expect(fired).toBe(2)
    timer.clear()
    timer.refresh()
    await vi.advanceTimersByTimeAsync(100)
    expect(fired).toBe(2)
  })

  it('delay and timeoutSignal honour long delays too', async () => {
    vi.useFakeTimers()
    let slept = false
    void delay(BEYOND_32_BITS).then(() => {
      slept = true
    })
    const deadline = timeoutSignal(BEYOND_32_BITS)
    await vi.advanceTimersByTimeAsync(10)
    expect(slept).toBe(false)
    expect(deadline.signal.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(BEYOND_32_BITS)
    expect(slept).toBe(true)
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError' })
  })

  it('delay rejects with the signal\'s reason when it aborts', async () => {
    const controller = new AbortController()
    const sleeping = delay(60_000, controller.signal)
    controller.abort(new Error('stop'))
    await expect(sleeping).rejects.toThrow('stop')
  })
})

describe('every timer of the package goes through startTimer', () => {
  it('no module under src/ but core/timer.ts calls setTimeout or AbortSignal.timeout', () => {
    const root = join(__dirname, '../../src')
    const offenders: string[] = []
    const visit = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) {
          visit(path)
          continue
        }
        if (!entry.name.endsWith('.ts') || relative(root, path) === join('core', 'timer.ts'))
          continue
        // Comments may name them; code may not.
        const code = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
        if (/\bsetTimeout\s*\(|AbortSignal\.timeout\s*\(|\bsetInterval\s*\(/.test(code))
          offenders.push(relative(root, path))
      }
    }
    visit(root)
    expect(offenders).toEqual([])
  })
})

describe('bounds above 2^31 - 1 ms through the public API', () => {
  it('hookTimeoutMs: 2 ** 31 + 5 does not time out a fail-closed hook that takes a moment', async () => {
    let ran = 0
    const agent = createAgent({
      provider: scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'done' }]),
      tools: { a: echoTool('a', { execute: () => String(++ran) }) },
      behavior: { hookTimeoutMs: BEYOND_32_BITS },
      hooks: { 'tool:gate': () => wait(30) },
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    // A gate that timed out would have blocked the call.
    expect(ran).toBe(1)
  })

  it('maxWallMs: 2 ** 31 + 5 does not end a run after a millisecond', async () => {
    const agent = createAgent({
      provider: scriptedProvider([{ text: 'late', delayMs: 30 }]),
      behavior: { maxWallMs: BEYOND_32_BITS },
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('late')
  })

  it('decisions.timeoutMs: 2 ** 31 + 5 does not time a decision out after a millisecond', async () => {
    const fake = await startFakeAnthropic()
    try {
      fake.enqueue({ type: 'turn', delayMs: 30, turn: { toolCalls: [{ name: 'record_answers', input: { safe: { value: true, refused: false, reason: 'read-only' } } }], usage: { input_tokens: 9, output_tokens: 2 } } })
      const agent = createAgent({
        provider: anthropic({ baseURL: fake.url, apiKey: 'test-key', defaultModel: 'claude-haiku-4-5' }),
        decisions: { timeoutMs: BEYOND_32_BITS },
      })
      const outcome = await agent.decide({ input: 'ls', questions: { safe: { kind: 'predicate', question: 'Is it safe?' } } })
      expect(outcome).toMatchObject({ ok: true, answers: { safe: { value: true } } })
    }
    finally {
      await fake.close()
    }
  })
})

describe('a bound above 2^31 - 1 ms handed to an SDK client', () => {
  it('anthropic({ timeoutMs: 2 ** 31 + 5 }) does not abort its request after a millisecond', async () => {
    const fake = await startFakeAnthropic()
    try {
      fake.enqueue({ type: 'turn', delayMs: 30, turn: { text: 'answered' } })
      const agent = createAgent({
        provider: anthropic({ baseURL: fake.url, apiKey: 'test-key', timeoutMs: BEYOND_32_BITS }),
        behavior: { retry: { maxAttempts: 1 } },
      })
      const stats = await agent.run({ prompt: 'go' })
      expect(stats.text).toBe('answered')
    }
    finally {
      await fake.close()
    }
  })
})
