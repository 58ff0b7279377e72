import { afterEach, describe, expect, it, vi } from 'vitest'
import { AgentBudgetExceededError, OperationTimeoutError } from '../../src/errors'
import { startHardDeadline, startWallDeadline, untilWall, wallThatEnded } from '../../src/loop/wall-deadline'

afterEach(() => {
  vi.useRealTimers()
})

describe('the maxWallMs cap on a wait', () => {
  it('passes a failure before the cap through unchanged', async () => {
    const wall = startWallDeadline({ maxWallMs: 60_000 }, Date.now(), () => {})!
    const failure = new Error('refused')
    await expect(wall.bound(Promise.reject(failure))).rejects.toBe(failure)
    wall.clear()
  })

  it('rejects with the budget error at the cap while the work is still pending, and ends the run once', async () => {
    vi.useFakeTimers()
    const ended: unknown[] = []
    const wall = startWallDeadline({ maxWallMs: 100 }, Date.now(), error => ended.push(error))!
    const first = wall.bound(new Promise(() => {})).catch((error: unknown) => error)
    const second = wall.bound(new Promise(() => {})).catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(100)
    const error = await first
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'wallClock', max: 100 })
    expect(await second).toBe(error)
    expect(ended).toEqual([error])
    expect(wall.error).toBe(error)
  })

  it('never ends the run when no wait is pending at the cap (a tool in flight is not a wait it cuts)', async () => {
    vi.useFakeTimers()
    const ended: unknown[] = []
    const wall = startWallDeadline({ maxWallMs: 100 }, Date.now(), error => ended.push(error))!
    await expect(wall.bound(Promise.resolve('early'))).resolves.toBe('early')
    await vi.advanceTimersByTimeAsync(1_000)
    expect(ended).toEqual([])
    expect(wall.error).toBeUndefined()
  })

  it('after the cap, work already settled still wins and work that would wait is cut', async () => {
    vi.useFakeTimers()
    const wall = startWallDeadline({ maxWallMs: 100 }, Date.now(), () => {})!
    await vi.advanceTimersByTimeAsync(150)
    await expect(wall.bound(Promise.resolve('ready'))).resolves.toBe('ready')
    await expect(wall.bound(new Promise(resolve => setTimeout(resolve, 5, 'late')))).rejects.toBeInstanceOf(AgentBudgetExceededError)
  })

  it('a step whose own bound ran out with the cap reports the budget error, whichever timer ran first', async () => {
    vi.useFakeTimers()
    const wall = startWallDeadline({ maxWallMs: 100 }, Date.now(), () => {})!
    let timeOut!: (error: unknown) => void
    const step = new Promise((_, reject) => {
      timeOut = reject
    })
    const outcome = wall.bound(step).catch((error: unknown) => error)
    // The clock reaches the cap and the step's own timeout fires before the cap's timer has run.
    vi.setSystemTime(wall.at)
    timeOut(new OperationTimeoutError('MCP connect', 100))
    await vi.advanceTimersByTimeAsync(100)
    const error = await outcome
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect((error as AgentBudgetExceededError).limit).toBe('wallClock')
  })
})

describe('the hardWallMs deadline', () => {
  it('ends the run at the deadline whatever is pending, and untilWall rejects with its error', async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    const hardWall = startHardDeadline({ hardWallMs: 50 }, Date.now(), error => controller.abort(error))!
    const run = { signal: controller.signal, hardWall }
    const outcome = untilWall(new Promise(() => {}), run).catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(50)
    const error = await outcome
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'wallClock', max: 50 })
    expect(controller.signal.reason).toBe(error)
    expect(wallThatEnded(run)).toBe(hardWall)
  })

  it('a cancel is not a wall: untilWall keeps waiting and wallThatEnded names none', async () => {
    const controller = new AbortController()
    const hardWall = startHardDeadline({ hardWallMs: 60_000 }, Date.now(), error => controller.abort(error))!
    const run = { signal: controller.signal, hardWall }
    let finish!: (value: string) => void
    const waiting = untilWall(new Promise<string>((resolve) => {
      finish = resolve
    }), run)
    controller.abort(new Error('cancelled'))
    finish('done')
    await expect(waiting).resolves.toBe('done')
    expect(wallThatEnded(run)).toBeUndefined()
    hardWall.clear()
  })

  it('is off without a positive limit', () => {
    expect(startHardDeadline({ hardWallMs: 0 }, Date.now(), () => {})).toBeUndefined()
    expect(startHardDeadline({ hardWallMs: Number.NaN }, Date.now(), () => {})).toBeUndefined()
    expect(startWallDeadline({ maxWallMs: -1 }, Date.now(), () => {})).toBeUndefined()
  })
})
