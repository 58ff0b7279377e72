/**
 * What one Restate step journals: the step's value, or the error it ended
 * with, as one JSON text. A failed step is journaled as a value, not as a
 * Restate failure: Restate retries a failed `ctx.run` (forever by default),
 * while the loop has its own retry policy, which must see the same error on
 * a replay as it saw live. So the error is rebuilt on a replay with its
 * class (any error class `zidane/errors` exports), name, message and fields.
 */
import * as errors from '../../errors'

/** A journaled step: `{ "v": value }` or `{ "e": error }`, with `t`, the epoch ms it ended at (the clock moves there). */
export type StepRecord = ({ v: unknown } | { e: JournaledError }) & { t: number }

/** An error as the journal keeps it. */
export interface JournaledError {
  name: string
  message: string
  /** Its own enumerable fields that survive JSON (`kind`, `status`, `retryable`, …). */
  fields?: Record<string, unknown>
}

/** The error classes a replay rebuilds, by name (each sets its instances' `name` to its class name). */
const ERROR_CLASSES: ReadonlyMap<string, { prototype: Error }> = new Map(
  (Object.values(errors) as unknown[])
    .filter((value): value is { prototype: Error, name: string } => typeof value === 'function' && value.prototype instanceof Error)
    .map(errorClass => [errorClass.name, errorClass]),
)

export function encodeStepError(error: unknown): JournaledError {
  if (!(error instanceof Error))
    return { name: 'Error', message: typeof error === 'string' ? error : safeJson(error) ?? String(error) }
  const fields: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(error)) {
    if (key === 'name' || key === 'message' || key === 'stack' || key === 'cause')
      continue
    const text = safeJson(value)
    if (text !== undefined)
      fields[key] = JSON.parse(text)
  }
  return Object.keys(fields).length > 0 ? { name: error.name, message: error.message, fields } : { name: error.name, message: error.message }
}

/** The journaled error as an instance of its class (a plain `Error` for a class zidane does not export). */
export function decodeStepError(journaled: JournaledError): Error {
  const errorClass = ERROR_CLASSES.get(journaled.name)
  const error = errorClass ? Object.create(errorClass.prototype) as Error : new Error(journaled.message)
  Object.defineProperty(error, 'message', { value: journaled.message, writable: true, configurable: true, enumerable: false })
  Object.defineProperty(error, 'stack', { value: `${journaled.name}: ${journaled.message}\n    (replayed from the durable journal)`, writable: true, configurable: true, enumerable: false })
  Object.assign(error, { name: journaled.name }, journaled.fields)
  return error
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  }
  catch {
    return undefined
  }
}
