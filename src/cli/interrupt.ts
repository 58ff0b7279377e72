/**
 * Ctrl-C while a run is going: the first stops the run the way
 * `agent.abort()` does (the tool calls in flight are answered, the session
 * stays consistent, `--resume` continues it), the second leaves at once.
 */

/** What a process-like object must offer (the real `process`, or a test double). */
export interface SignalSource {
  on: (signal: 'SIGINT', listener: () => void) => unknown
  off: (signal: 'SIGINT', listener: () => void) => unknown
}

export interface InterruptHandlers {
  /** The first Ctrl-C: stop the run cleanly. */
  readonly stop: () => void
  /** The second Ctrl-C: leave now. */
  readonly quit: () => void
}

/** Ctrl-C handling while a run goes on. */
export interface InterruptListener {
  /**
   * A Ctrl-C that arrived as a key rather than a signal (a question on the
   * terminal puts it in raw mode): counts like the signal.
   */
  readonly press: () => void
  /** Stop listening. */
  readonly dispose: () => void
}

/** Listen for Ctrl-C until `dispose` is called. */
export function handleInterrupts(source: SignalSource, handlers: InterruptHandlers): InterruptListener {
  let count = 0
  const listener = () => {
    count++
    if (count === 1)
      handlers.stop()
    else
      handlers.quit()
  }
  source.on('SIGINT', listener)
  return {
    press: listener,
    dispose: () => {
      source.off('SIGINT', listener)
    },
  }
}
