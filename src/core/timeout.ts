import { OperationTimeoutError } from '../errors'

/**
 * Wait for `work`, but no longer than `timeoutMs` (`0` or less: no bound).
 * On timeout it rejects with `OperationTimeoutError`; the work is abandoned,
 * and a later rejection of it is swallowed rather than left unhandled.
 */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number, operation: string): Promise<T> {
  if (!(timeoutMs > 0))
    return work
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OperationTimeoutError(operation, timeoutMs)), timeoutMs)
  })
  work.catch(() => {})
  try {
    return await Promise.race([work, timeout])
  }
  finally {
    clearTimeout(timer)
  }
}
