/**
 * The durable core's names this engine builds on, in one place, so the
 * engine's files import them from here.
 */
export interface DurableRuntime {
  readonly mode: 'replay' | 'checkpoint'
  step: <T>(name: string, fn: () => Promise<T>) => Promise<T>
  now: () => number | Promise<number>
  randomUUID: () => string
  readonly maxEntryBytes?: number
}

export class DurablePayloadTooLargeError extends Error {
  override name = 'DurablePayloadTooLargeError'
  constructor(readonly step: string, readonly bytes: number, readonly maxBytes: number) {
    super(`The durable journal entry of "${step}" is ${bytes} bytes, over the ${maxBytes}-byte limit (maxEntryBytes); it was not journaled`)
  }
}
