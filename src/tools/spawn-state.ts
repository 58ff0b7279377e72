import { withGetters } from '../core/fast-accessors'

/** One child a spawn tool is running now. */
export interface SpawnedChild {
  /** The child's label (`child-N`), unique within its parent's session. */
  id: string
  task: string
  /** The child's depth: 1 for a child of a top-level run. */
  depth: number
  /** The `spawn` call that started it. */
  callId: string
  /** The run that made the call. */
  parentRunId: string
  /** Model and provider of the child's first turn. */
  model: string
  provider: string
  /** When the child started (ms since the epoch). */
  startedAt: number
}

/**
 * A live view of one spawn tool: the children it is running now and the calls
 * waiting for a `maxConcurrent` slot, across every run that uses the tool. For
 * progress displays; finished children are in each run's `stats.children`.
 */
export interface SpawnToolState {
  /** Children running now, in start order. */
  readonly running: readonly SpawnedChild[]
  /** Spawn calls waiting for a slot. */
  readonly waiting: number
}

/** The tool's side of its state: what it records as children start and end. */
export interface SpawnStateTracker {
  readonly view: SpawnToolState
  start: (child: SpawnedChild) => void
  end: (child: SpawnedChild) => void
}

/** `waiting` is read from the tool's slots when asked, so it never drifts from the queues themselves. */
export function createSpawnState(waiting: () => number): SpawnStateTracker {
  const running: SpawnedChild[] = []
  return {
    // Getters on one stable object: a copy of the tool (`{ ...spawn }`) still sees live values.
    view: withGetters<SpawnToolState, 'running' | 'waiting'>({}, { running: () => [...running], waiting }),
    start: child => void running.push(child),
    end: (child) => {
      const index = running.indexOf(child)
      if (index !== -1)
        running.splice(index, 1)
    },
  }
}
