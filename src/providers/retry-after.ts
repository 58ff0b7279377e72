const SECONDS = /^\d+(?:\.\d+)?$/

/**
 * Milliseconds a server asked us to wait: `retry-after-ms` first (exact), then
 * `retry-after` as seconds or as an HTTP date. Absent or unreadable → `undefined`.
 * Shared by every provider; it depends on nothing, so importing it loads no SDK.
 */
export function parseRetryAfter(headers: Headers, nowMs: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0)
    return Math.round(ms)

  const value = headers.get('retry-after')?.trim()
  if (!value)
    return undefined
  if (SECONDS.test(value))
    return Math.round(Number.parseFloat(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs)
}
