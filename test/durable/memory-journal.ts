import type { DurableRuntime } from '../../src/durable'

/**
 * A journal kept in memory, as an engine keeps one per invocation: step
 * results by name, and the clock reads and ids in the order they were made
 * (an engine journals those positionally too). It outlives the runtimes that
 * write it, so a "restarted worker" replays it.
 */
export interface MemoryJournal {
  readonly steps: Map<string, string>
  /** Step names in the order they were first journaled. */
  readonly order: string[]
  readonly times: number[]
  readonly ids: string[]
}

export function memoryJournal(): MemoryJournal {
  return { steps: new Map(), order: [], times: [], ids: [] }
}

export interface ReplayRuntimeOptions {
  /**
   * Die when this many new steps (not replayed ones) have started: from then
   * on no step starts or hands its result on, like a killed process (steps
   * already running still reach the journal, as if the kill came just after them).
   */
  crashAfter?: number
  maxEntryBytes?: number
  /** First time read (ms). */
  start?: number
  /** How far time moves per read, in ms. Default 7. */
  tick?: number
}

export interface ReplayRuntime extends DurableRuntime {
  /** Steps whose function ran here, and steps answered from the journal. */
  readonly ran: string[]
  readonly replayed: string[]
  /** Settles when the runtime "died" (`crashAfter`) and the steps it was running have reached the journal. */
  readonly crashed: Promise<void>
}

/**
 * A replay-mode runtime over `journal`. Time and ids are positional: the
 * n-th read of this runtime returns the n-th journaled value, or journals a
 * new one. A step journaled before returns its JSON; a new one runs.
 */
export function replayRuntime(journal: MemoryJournal, options: ReplayRuntimeOptions = {}): ReplayRuntime {
  let timeReads = 0
  let idReads = 0
  let started = 0
  let running = 0
  let dead = false
  let die!: () => void
  const crashed = new Promise<void>((resolve) => {
    die = resolve
  })
  const settleIfQuiet = () => {
    if (dead && running === 0)
      die()
  }
  const ran: string[] = []
  const replayed: string[] = []
  const start = options.start ?? 1_700_000_000_000
  return {
    mode: 'replay',
    ...(options.maxEntryBytes === undefined ? {} : { maxEntryBytes: options.maxEntryBytes }),
    ran,
    replayed,
    crashed,
    async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
      const stored = journal.steps.get(name)
      if (stored !== undefined) {
        replayed.push(name)
        return JSON.parse(stored) as T
      }
      if (dead || (options.crashAfter !== undefined && started >= options.crashAfter)) {
        dead = true
        settleIfQuiet()
        return new Promise<T>(() => {})
      }
      started += 1
      running += 1
      const value = await fn().finally(() => {
        running -= 1
      })
      ran.push(name)
      journal.steps.set(name, JSON.stringify(value))
      journal.order.push(name)
      if (dead) {
        settleIfQuiet()
        return new Promise<T>(() => {})
      }
      return value
    },
    now() {
      const index = timeReads++
      if (index < journal.times.length)
        return journal.times[index]
      const value = start + index * (options.tick ?? 7)
      if (!dead)
        journal.times.push(value)
      return value
    },
    randomUUID() {
      const index = idReads++
      if (index < journal.ids.length)
        return journal.ids[index]
      const value = `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`
      if (!dead)
        journal.ids.push(value)
      return value
    },
  }
}
