import type { AgentTelemetry } from './options'
import { truncateText } from '../text/truncate'

/** Longest `agentName` / `agentId`: they go on every span and are a metric dimension. */
const MAX_AGENT_LABEL_LENGTH = 256

/**
 * Check `AgentOptions.telemetry` at `createAgent`, so a bad value fails there
 * and not in a run. Each field is read once. Before, a `tracer` or `meter`
 * without its methods failed every run with `startSpan is not a function`,
 * and `recordInputs: 'yes'` recorded nothing, silently.
 */
export function validateTelemetry(options: AgentTelemetry | undefined): void {
  if (options === undefined)
    return
  if (typeof options !== 'object' || options === null)
    throw new TypeError('createAgent: telemetry must be an object')
  const { tracer, meter, recordInputs, recordOutputs, maxContentBytes, redact, agentName, agentId } = options
  if (tracer !== undefined && !hasMethod(tracer, 'startSpan'))
    throw new TypeError('createAgent: telemetry.tracer must be an OpenTelemetry tracer (an object with `startSpan`)')
  if (meter !== undefined && !hasMethod(meter, 'createHistogram'))
    throw new TypeError('createAgent: telemetry.meter must be an OpenTelemetry meter (an object with `createHistogram`)')
  for (const [name, value] of [['recordInputs', recordInputs], ['recordOutputs', recordOutputs]] as const) {
    if (value !== undefined && typeof value !== 'boolean')
      throw new TypeError(`createAgent: telemetry.${name} must be true or false, got ${describe(value)}`)
  }
  if (maxContentBytes !== undefined && (!Number.isInteger(maxContentBytes) || maxContentBytes < 64 || maxContentBytes > 16 * 1024 * 1024))
    throw new TypeError(`createAgent: telemetry.maxContentBytes must be an integer from 64 to 16 MiB, got ${describe(maxContentBytes)}`)
  if (redact !== undefined && typeof redact !== 'function')
    throw new TypeError('createAgent: telemetry.redact must be a function')
  for (const [name, value] of [['agentName', agentName], ['agentId', agentId]] as const) {
    if (value !== undefined && (typeof value !== 'string' || value === '' || value.length > MAX_AGENT_LABEL_LENGTH))
      throw new TypeError(`createAgent: telemetry.${name} must be a string of 1 to ${MAX_AGENT_LABEL_LENGTH} characters, got ${describe(value)}`)
  }
}

function hasMethod(value: unknown, name: string): boolean {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[name] === 'function'
}

/** A short, safe description of a rejected value (never the whole of a long string). */
function describe(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${truncateText(value, 40)}…` : value)
  if (typeof value === 'object' && value !== null)
    return Array.isArray(value) ? 'an array' : 'an object'
  return String(value)
}
