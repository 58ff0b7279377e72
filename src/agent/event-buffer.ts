import type { AgentStreamEvent, TextDeltaEvent, ThinkingDeltaEvent } from './stream-events'

type DeltaEvent = TextDeltaEvent | ThinkingDeltaEvent

interface Reader {
  resolve: (result: IteratorResult<AgentStreamEvent, undefined>) => void
  reject: (error: unknown) => void
}

const DONE: IteratorResult<AgentStreamEvent, undefined> = { done: true, value: undefined }

/** Drop consumed slots once this many have piled up at the front (keeps `shift` O(1) amortized). */
const COMPACT_AFTER = 1024

/**
 * The events of one `agent.stream()` that the reader has not taken yet.
 *
 * Memory stays bounded without slowing the hot path: pushing never waits.
 * Instead the run awaits `drained()` at its turn and tool boundaries, which
 * holds it once half of `highWaterMark` is in use and releases it when the
 * reader has brought the buffer down to a quarter; the other half is room for
 * the events one step produces before its next boundary. Deltas cannot wait
 * (they are fired from the provider's synchronous callbacks), so only if the
 * buffer is full is a delta appended to the last waiting delta of the same
 * kind and turn: no text is lost and the order holds, the pieces get larger.
 */
export class EventBuffer {
  private items: (AgentStreamEvent | undefined)[] = []
  private head = 0
  private readers: Reader[] = []
  private producers: (() => void)[] = []
  private state: 'open' | 'ended' | 'failed' | 'finished' = 'open'
  private error: unknown
  /** Set by the first read. Until someone reads, the run never waits (a caller may only want `result`). */
  private reading = false
  /** The most events that were ever waiting at once. */
  peak = 0

  /** Waiting starts at this many unread events… */
  private readonly pauseAt: number
  /** …and ends at this many. */
  private readonly resumeAt: number

  constructor(readonly highWaterMark: number) {
    this.pauseAt = Math.ceil(highWaterMark / 2)
    this.resumeAt = highWaterMark >> 2
  }

  /** Events waiting to be read. */
  get size(): number {
    return this.items.length - this.head
  }

  push(event: AgentStreamEvent): void {
    if (this.state !== 'open')
      return
    const reader = this.readers.shift()
    if (reader) {
      reader.resolve({ done: false, value: event })
      return
    }
    this.items.push(event)
    if (this.size > this.peak)
      this.peak = this.size
  }

  pushDelta(event: DeltaEvent): void {
    if (this.state === 'open' && this.size >= this.highWaterMark) {
      const tail = this.items.at(-1)
      if (tail !== undefined && (tail.type === 'text' || tail.type === 'thinking')
        && tail.type === event.type && tail.runId === event.runId && tail.turnId === event.turnId) {
        tail.delta += event.delta
        return
      }
    }
    this.push(event)
  }

  /**
   * Resolves once the reader has caught up, or `undefined` when there is
   * nothing to wait for (less than half full, nobody reading, or the stream
   * over), so the common case costs no promise.
   */
  drained(): Promise<void> | undefined {
    if (!this.reading || this.state !== 'open' || this.size < this.pauseAt)
      return undefined
    return new Promise(resolve => this.producers.push(resolve))
  }

  next(): Promise<IteratorResult<AgentStreamEvent, undefined>> {
    this.reading = true
    if (this.size > 0) {
      const value = this.items[this.head]!
      this.items[this.head] = undefined
      this.head += 1
      if (this.head >= COMPACT_AFTER && this.head * 2 >= this.items.length) {
        this.items = this.items.slice(this.head)
        this.head = 0
      }
      if (this.size <= this.resumeAt)
        this.releaseProducers()
      return Promise.resolve({ done: false, value })
    }
    if (this.state === 'failed') {
      this.state = 'finished'
      return Promise.reject(this.error)
    }
    if (this.state !== 'open')
      return Promise.resolve(DONE)
    // An empty buffer is below any mark: a run waiting on it may go on.
    this.releaseProducers()
    return new Promise((resolve, reject) => this.readers.push({ resolve, reject }))
  }

  /** The run returned: readers get what is left, then the end. */
  end(): void {
    if (this.state !== 'open')
      return
    this.state = 'ended'
    this.settleReaders()
  }

  /** The run threw: readers get what is left, then `error` once. */
  fail(error: unknown): void {
    if (this.state !== 'open')
      return
    this.state = 'failed'
    this.error = error
    this.settleReaders()
  }

  /** The reader is gone: drop everything, accept nothing more, and never hold the run again. */
  close(): void {
    this.state = 'finished'
    this.items = []
    this.head = 0
    this.settleReaders()
  }

  private settleReaders(): void {
    this.releaseProducers()
    // Readers only wait on an empty buffer, so there is nothing left to hand them.
    for (let reader = this.readers.shift(); reader; reader = this.readers.shift()) {
      if (this.state === 'failed') {
        this.state = 'finished'
        reader.reject(this.error)
      }
      else {
        reader.resolve(DONE)
      }
    }
  }

  private releaseProducers(): void {
    if (this.producers.length === 0)
      return
    const waiting = this.producers
    this.producers = []
    for (const release of waiting) release()
  }
}
