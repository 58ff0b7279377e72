import type { Timer } from './timer'
import { OperationTimeoutError } from '../errors'
import { startTimer } from './timer'

/**
 * Wait for `work`, but no longer than `timeoutMs` (`0` or less: no bound).
 * On timeout it rejects with `OperationTimeoutError`; the work is abandoned,
 * and a later rejection of it is swallowed rather than left unhandled.
 */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number, operation: string): Promise<T> {
  if (!(timeoutMs > 0))
    return work
  let timer: Timer | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = startTimer(timeoutMs, () => reject(new OperationTimeoutError(operation, timeoutMs)))
  })
  work.catch(() => {})
  try {
    return await Promise.race([work, timeout])
  }
  finally {
    timer?.clear()
  }
}
