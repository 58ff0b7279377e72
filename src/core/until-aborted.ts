/**
 * Wait for `work`, but give up as soon as `signal` aborts (rejecting with its
 * reason). The work itself keeps going, since a promise cannot be cancelled:
 * what it settles with after the wait ended is handed to `onLateError` (or
 * dropped), never left as an unhandled rejection.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onLateError: (error: unknown) => void = () => {}): Promise<T> {
  if (signal.aborted) {
    work.catch(onLateError)
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then((value) => {
      signal.removeEventListener('abort', onAbort)
      resolve(value)
    }, (error: unknown) => {
      signal.removeEventListener('abort', onAbort)
      if (signal.aborted)
        onLateError(error)
      reject(error)
    })
  })
}
