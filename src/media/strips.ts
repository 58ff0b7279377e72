/**
 * Long pixel work cut into strips: after about `STRIP_BYTES` of work the
 * caller gives the event loop a turn and checks its signal, so a large image
 * neither freezes the process nor outlives the run that asked for it.
 */

import { PngDecodeAbortedError } from './png-format'

/** Bytes of pixel work between two yields: a few milliseconds on one core. */
export const STRIP_BYTES = 512 * 1024

export class Strips {
  private done = 0

  constructor(private readonly signal?: AbortSignal) {}

  /** Throws `PngDecodeAbortedError` when the signal has fired. */
  check(): void {
    if (this.signal?.aborted)
      throw new PngDecodeAbortedError()
  }

  /** Call `stop` when the signal fires (at once if it has); returns what removes the listener. */
  onAbort(stop: () => void): () => void {
    const signal = this.signal
    if (!signal)
      return () => {}
    if (signal.aborted) {
      stop()
      return () => {}
    }
    signal.addEventListener('abort', stop, { once: true })
    return () => signal.removeEventListener('abort', stop)
  }

  /** Count `work` bytes; at the end of a strip, yield to the event loop, then check the signal. */
  async step(work: number): Promise<void> {
    this.done += work
    if (this.done < STRIP_BYTES)
      return
    this.done = 0
    await new Promise<void>(resolve => setImmediate(resolve))
    this.check()
  }

  /** Run a generator of steps (each yields the bytes it handled) to its end, strip by strip. */
  async drain<T>(steps: Generator<number, T>): Promise<T> {
    for (;;) {
      const step = steps.next()
      if (step.done)
        return step.value
      await this.step(step.value)
    }
  }
}
