import type { AgentStats } from '../core/stats'
import type { RunHookMap } from '../hooks/hook-map'
import type { AgentRunOptions } from './options'
import type { AgentStreamEvent } from './stream-events'
import { withGetters } from '../core/fast-accessors'
import { mergeObjects } from '../core/merge-objects'
import { AgentAbortedError } from '../errors'
import { EventBuffer } from './event-buffer'
import { streamEventHooks } from './stream-hooks'

/** Default `highWaterMark`: room for a few turns of a chatty model before the run waits. */
export const DEFAULT_STREAM_HIGH_WATER_MARK = 256

/** `agent.stream()` options: everything `agent.run()` takes, plus how far the run may get ahead of the reader. */
export interface AgentStreamOptions extends AgentRunOptions {
  /**
   * Events that may wait unread before the run pauses at its next turn or
   * tool boundary (until half have been read); while it is reached, deltas
   * are joined onto the last unread delta instead of adding events. A
   * positive integer; default `DEFAULT_STREAM_HIGH_WATER_MARK`.
   */
  highWaterMark?: number
}

/**
 * A run as an async iterable of typed events. Iterate it once; the final
 * stats are on `result`. Leaving the loop early (`break`, `return`, a throw)
 * aborts the run and waits for it to wind down, so every tool call is still
 * answered and the session is consistent when the loop exits.
 */
export interface AgentStream<Output = unknown> extends AsyncIterable<AgentStreamEvent> {
  /**
   * The run's stats (the same `agent.run()` returns, `output` typed the same
   * way), or its typed error. Iterating already reports that error, so an
   * unread rejection here never counts as unhandled.
   */
  readonly result: Promise<AgentStats<Output>>
  /** Events produced and not read yet. */
  readonly buffered: number
  /** The most events that were ever waiting unread at once (to tune `highWaterMark`). */
  readonly peakBuffered: number
  /** The next event; after the last one, `done`; when the run threw, that error once. */
  next: () => Promise<IteratorResult<AgentStreamEvent, undefined>>
  /** Stop reading: aborts the run if it is still going and resolves once it has ended. */
  return: () => Promise<IteratorResult<AgentStreamEvent, undefined>>
  /** The stream is its own iterator: `for await` reads the same events as `next()`. */
  [Symbol.asyncIterator]: () => AgentStream<Output>
}

/**
 * Start `run` with hooks that feed an event buffer, and hand the buffer out
 * as an iterator. The run starts at once, like `agent.run()`: `agent.running`
 * is true and `agent.steer()` reaches it before the first event is read.
 */
export function streamRun(run: (options: AgentRunOptions) => Promise<AgentStats>, options: AgentStreamOptions = {}): AgentStream {
  const { highWaterMark = DEFAULT_STREAM_HIGH_WATER_MARK, ...runOptions } = options
  if (!Number.isInteger(highWaterMark) || highWaterMark < 1)
    throw new RangeError(`agent.stream(): highWaterMark must be a positive integer, got ${String(highWaterMark)}`)

  const buffer = new EventBuffer(highWaterMark)
  const controller = new AbortController()
  const signal = runOptions.signal ? AbortSignal.any([runOptions.signal, controller.signal]) : controller.signal
  let topRunId = ''
  let settled = false
  const hooks = mergeHooks(runOptions.hooks, streamEventHooks(buffer, (runId) => {
    topRunId = runId
  }))

  const result = run(mergeObjects(runOptions, { signal, hooks })).then(
    (stats) => {
      settled = true
      buffer.push({ type: 'done', runId: topRunId, depth: runOptions.depth ?? 0, stats })
      buffer.end()
      return stats
    },
    (error: unknown) => {
      settled = true
      buffer.fail(error)
      throw error
    },
  )
  // The reader hears of a failure from `next()`; `result` must not also crash the process when nobody awaits it.
  result.catch(() => {})

  const stream: AgentStream = withGetters<AgentStream, 'buffered' | 'peakBuffered'>({
    result,
    next: () => buffer.next(),
    async return() {
      if (!settled)
        controller.abort(new AgentAbortedError('The stream was closed before the run ended'))
      buffer.close()
      await result.catch(() => {})
      return { done: true, value: undefined }
    },
    [Symbol.asyncIterator]: () => stream,
  }, { buffered: () => buffer.size, peakBuffered: () => buffer.peak })
  return stream
}

/** The caller's per-run hooks first, then the stream's, event by event. */
function mergeHooks(own: RunHookMap | undefined, added: RunHookMap): RunHookMap {
  if (!own)
    return added
  // Entries are copied name by name, so one loose view of both maps is enough here.
  const merged: Record<string, unknown> = { ...own }
  for (const [name, handler] of Object.entries(added)) {
    const existing = merged[name]
    merged[name] = existing === undefined ? handler : [...[existing].flat(), ...[handler].flat()]
  }
  return merged as RunHookMap
}
