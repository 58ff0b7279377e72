/**
 * Many runs may share one caller `AbortSignal` (a server aborting every
 * request of a shutting-down process, say). One listener per run would
 * cross Node's listener limit and print `MaxListenersExceededWarning` under
 * perfectly normal load, and the signal is the caller's, so raising its limit
 * is not ours to do. Instead each signal gets a single listener that fans out
 * to every subscriber, and is removed with the last one.
 */
interface FanOut {
  readonly callbacks: Set<() => void>
  readonly listener: () => void
}

const fanOuts = new WeakMap<AbortSignal, FanOut>()

/**
 * Call `callback` once when `signal` aborts. Returns the unsubscribe
 * function. The callback is not called for a signal that is already aborted:
 * check `signal.aborted` first.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let fanOut = fanOuts.get(signal)
  if (!fanOut) {
    const callbacks = new Set<() => void>()
    const listener = () => {
      fanOuts.delete(signal)
      for (const notify of [...callbacks])
        notify()
    }
    fanOut = { callbacks, listener }
    fanOuts.set(signal, fanOut)
    signal.addEventListener('abort', listener, { once: true })
  }
  // A wrapper per subscription, so the same callback may subscribe twice.
  const entry = () => callback()
  const mine = fanOut
  mine.callbacks.add(entry)
  return () => {
    if (!mine.callbacks.delete(entry) || mine.callbacks.size > 0 || fanOuts.get(signal) !== mine)
      return
    fanOuts.delete(signal)
    signal.removeEventListener('abort', mine.listener)
  }
}
