import type { AgentTelemetry } from './options'

/** Check `AgentOptions.telemetry` at `createAgent`, so a bad value fails there and not in a run. */
export function validateTelemetry(options: AgentTelemetry | undefined): void {
  if (options === undefined)
    return
  if (typeof options !== 'object' || options === null)
    throw new TypeError('createAgent: telemetry must be an object')
  const maxBytes = options.maxContentBytes
  if (maxBytes !== undefined && (!Number.isInteger(maxBytes) || maxBytes < 64 || maxBytes > 16 * 1024 * 1024))
    throw new TypeError(`createAgent: telemetry.maxContentBytes must be an integer from 64 to 16 MiB, got ${String(maxBytes)}`)
  if (options.redact !== undefined && typeof options.redact !== 'function')
    throw new TypeError('createAgent: telemetry.redact must be a function')
}
