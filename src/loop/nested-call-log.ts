import type { NestedToolCallRecord } from '../core/content'
import { mergeObjects } from '../core/merge-objects'

/**
 * How many nested calls one call of the model may make, at every depth
 * together. Each leaves a record on the model's call's result, written with
 * its turn; a host tool looping on `ctx.callTool` would otherwise grow that
 * turn without end. A codemode script stops well before (1,000 calls).
 */
export const MAX_NESTED_CALLS_PER_CALL = 10_000

/**
 * The nested calls made under one call of the model, at any depth, in the
 * order they started. Their ids show the tree: a call made under `a` is
 * `a.1`, one made under that is `a.1.1`. The log is read once, when the
 * model's call is answered; it is closed then, so a call that would start
 * later is refused and one still in flight is recorded as cut (an error).
 */
export class NestedCallLog {
  private entries: NestedCallEntry[] | undefined
  private closed = false

  get isClosed(): boolean {
    return this.closed
  }

  /** Whether `MAX_NESTED_CALLS_PER_CALL` calls were started: any more is refused unrecorded. */
  get isFull(): boolean {
    return this.entries !== undefined && this.entries.length >= MAX_NESTED_CALLS_PER_CALL
  }

  /** Reserve the record of a call that starts now; `undefined` once the log is closed. */
  start(id: string, name: string, input: Record<string, unknown>, line: number | undefined): NestedCallEntry | undefined {
    if (this.closed)
      return undefined
    const record: NestedToolCallRecord = line === undefined ? { id, name, input } : { id, name, input, line }
    const entry: NestedCallEntry = { record, settled: false }
    ;(this.entries ??= []).push(entry)
    return entry
  }

  /** Fill in how a call ended (ignored once the log was read). */
  settle(entry: NestedCallEntry, isError: boolean, durationMs: number): void {
    if (this.closed)
      return
    if (isError)
      entry.record.isError = true
    entry.record.durationMs = durationMs
    entry.settled = true
  }

  /** Close the log and take its records (`undefined` when no nested call was made). */
  close(): NestedToolCallRecord[] | undefined {
    this.closed = true
    return this.entries?.map(({ record, settled }) => settled ? record : mergeObjects(record, { isError: true }))
  }
}

export interface NestedCallEntry {
  readonly record: NestedToolCallRecord
  settled: boolean
}
