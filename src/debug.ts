/** Diagnostics for problems the loop survives on purpose; printed only when `ZIDANE_DEBUG` is set. */
export function debugLog(message: string, detail?: unknown): void {
  if (!process.env.ZIDANE_DEBUG)
    return
  if (detail === undefined)
    console.error(`[zidane] ${message}`)
  else
    console.error(`[zidane] ${message}`, detail)
}
