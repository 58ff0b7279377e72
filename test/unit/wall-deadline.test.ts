import { afterEach, describe, expect, it, vi } from 'vitest'
import { AgentBudgetExceededError, OperationTimeoutError } from '../../src/errors'
import { startWallDeadline, untilWall } from '../../src/loop/wall-deadline'

afterEach(() => {
  vi.useRealTimers()
})

describe('untilWall', () => {
  it('passes a failure before the deadline through unchanged', async () => {
    const wall = startWallDeadline({ maxWallMs: 60_000 }, Date.now(), () => {})!
    const failure = new Error('refused')
    await expect(untilWall(Promise.reject(failure), wall)).rejects.toBe(failure)
    wall.clear()
  })

  it('rejects with the budget error at the deadline while the work is still pending', async () => {
    vi.useFakeTimers()
    const aborted: unknown[] = []
    const wall = startWallDeadline({ maxWallMs: 100 }, Date.now(), error => aborted.push(error))!
    const waiting = untilWall(new Promise(() => {}), wall)
    const outcome = waiting.catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(100)
    const error = await outcome
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(aborted).toEqual([error])
  })

  it('a step whose own bound ran out with the wall reports the budget error, whichever timer ran first', async () => {
    vi.useFakeTimers()
    const wall = startWallDeadline({ maxWallMs: 100 }, Date.now(), () => {})!
    let timeOut!: (error: unknown) => void
    const step = new Promise((_, reject) => {
      timeOut = reject
    })
    const outcome = untilWall(step, wall).catch((error: unknown) => error)
    // The clock reaches the deadline and the step's own timeout fires before the wall's timer has run.
    vi.setSystemTime(wall.at)
    timeOut(new OperationTimeoutError('MCP connect', 100))
    await vi.advanceTimersByTimeAsync(100)
    const error = await outcome
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect((error as AgentBudgetExceededError).limit).toBe('wallClock')
  })
})
