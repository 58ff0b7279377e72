import type { WatchdogKind } from '../../src/loop/watchdog'
import { describe, expect, it } from 'vitest'
import { startStreamWatchdog } from '../../src/loop/watchdog'

const wait = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

function recorder() {
  const fired: { kind: WatchdogKind, afterMs: number }[] = []
  return { fired, onFire: (kind: WatchdogKind, afterMs: number) => void fired.push({ kind, afterMs }) }
}

describe('startStreamWatchdog', () => {
  it('fires start when nothing arrives', async () => {
    const { fired, onFire } = recorder()
    startStreamWatchdog({ startMs: 10 }, onFire)
    await wait(30)
    expect(fired).toEqual([{ kind: 'start', afterMs: 10 }])
  })

  it('clears the start timer on the first activity', async () => {
    const { fired, onFire } = recorder()
    const dog = startStreamWatchdog({ startMs: 15 }, onFire)
    dog.activity()
    await wait(35)
    expect(fired).toEqual([])
    dog.clear()
  })

  it('fires idle after a silence following activity, and only once', async () => {
    const { fired, onFire } = recorder()
    const dog = startStreamWatchdog({ idleMs: 10, totalMs: 15 }, onFire)
    dog.activity()
    await wait(40)
    expect(fired).toEqual([{ kind: 'idle', afterMs: 10 }])
  })

  it('fires total even while activity keeps coming', async () => {
    const { fired, onFire } = recorder()
    const dog = startStreamWatchdog({ idleMs: 100, totalMs: 20 }, onFire)
    const timer = setInterval(() => dog.activity(), 3)
    await wait(45)
    clearInterval(timer)
    expect(fired).toEqual([{ kind: 'total', afterMs: 20 }])
  })

  it('reports wall when the wall-clock deadline comes first', async () => {
    const { fired, onFire } = recorder()
    startStreamWatchdog({ startMs: 1_000, totalMs: 2_000, wallDeadline: Date.now() + 10 }, onFire)
    await wait(35)
    expect(fired).toHaveLength(1)
    expect(fired[0].kind).toBe('wall')
  })

  it('hands over from a long start limit to a short idle limit at the first activity', async () => {
    const { fired, onFire } = recorder()
    const dog = startStreamWatchdog({ startMs: 60_000, idleMs: 10, totalMs: 120_000 }, onFire)
    dog.activity()
    await wait(40)
    expect(fired).toEqual([{ kind: 'idle', afterMs: 10 }])
  })

  it('keeps the start timer when the idle limit ends later, and still fires idle from the last activity', async () => {
    const { fired, onFire } = recorder()
    const dog = startStreamWatchdog({ startMs: 10, idleMs: 50 }, onFire)
    dog.activity()
    await wait(30)
    // The timer set for the start limit went off and found the idle deadline still ahead.
    expect(fired).toEqual([])
    await wait(60)
    expect(fired).toEqual([{ kind: 'idle', afterMs: 50 }])
  })

  it('still fires total after the start deadline passed with activity seen', async () => {
    const { fired, onFire } = recorder()
    const dog = startStreamWatchdog({ startMs: 5, totalMs: 30 }, onFire)
    dog.activity()
    await wait(15)
    expect(fired).toEqual([])
    await wait(40)
    expect(fired).toEqual([{ kind: 'total', afterMs: 30 }])
  })

  it('treats 0 and undefined as off', async () => {
    const { fired, onFire } = recorder()
    const dog = startStreamWatchdog({ startMs: 0, idleMs: 0, totalMs: 0 }, onFire)
    dog.activity()
    await wait(20)
    expect(fired).toEqual([])
  })

  it('stays silent after clear(), even if activity arrives late', async () => {
    const { fired, onFire } = recorder()
    const dog = startStreamWatchdog({ startMs: 10, idleMs: 10, totalMs: 10 }, onFire)
    dog.clear()
    dog.activity()
    await wait(30)
    expect(fired).toEqual([])
  })
})
