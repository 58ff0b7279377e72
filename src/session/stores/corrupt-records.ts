/**
 * What a load does with a broken record, shared by every store: under
 * `onCorrupt: 'throw'` the first one becomes a `SessionStoreError('corrupt')`
 * naming the session and the record's place; under `'skip'` it is collected,
 * with its stored text, into `SessionData.skipped`, up to `MAX_SKIPPED_RECORDS`.
 */

import type { SessionRecordLocation } from '../../errors'
import type { SessionData, SessionLoadOptions, SkippedSessionRecord } from '../types'
import { SessionStoreError } from '../../errors'
import { groupDigits } from '../../text/group-digits'
import { metadataProblem, nestsTooDeep, runProblem, TOO_DEEP, turnProblem } from './record-checks'

/**
 * The most broken records one `onCorrupt: 'skip'` load lists. Each costs a
 * listed record, while its stored text can be two bytes (`0,` in a line of
 * turns): a skip without a bound would turn a 20 MB file into gigabytes of
 * listed records. Past it the load fails as a strict one does.
 */
export const MAX_SKIPPED_RECORDS = 10_000

export interface CorruptRecords {
  /** Throw for a broken record, or set it aside when skipping. `raw` is only called when skipping. */
  report: (kind: SkippedSessionRecord['kind'], place: string, location: SessionRecordLocation, raw: () => string) => void
  /** Hand the skipped records to `data` (only when there are any). */
  attach: (data: SessionData) => SessionData
}

/** `subject` names where the records live, e.g. `Session log "chat-1"`. */
export function corruptRecords(sessionId: string, subject: string, options: SessionLoadOptions | undefined): CorruptRecords {
  const skipping = options?.onCorrupt === 'skip'
  const skipped: SkippedSessionRecord[] = []
  return {
    report(kind, place, location, raw) {
      if (!skipping) {
        throw new SessionStoreError(
          `${subject}, ${place} ${location.problem}; load it with { onCorrupt: 'skip' } to keep every sound record`,
          'corrupt',
          { sessionId, record: location },
        )
      }
      if (skipped.length === MAX_SKIPPED_RECORDS) {
        throw new SessionStoreError(
          `${subject} has more than ${groupDigits(MAX_SKIPPED_RECORDS)} broken records, more than a skip lists `
          + `(the next: ${place} ${location.problem}); set the session aside, or repair it by hand`,
          'corrupt',
          { sessionId, record: location },
        )
      }
      skipped.push({ kind, ...location, raw: raw() })
    },
    attach(data) {
      if (skipped.length > 0)
        data.skipped = [...(data.skipped ?? []), ...skipped]
      return data
    },
  }
}

/** Stores whose `load` checks every record itself (the built-in ones), so what they load needs no second pass. */
const checkingStores = new WeakSet<object>()

/** Mark `store` as one whose `load` checks every record as `checkSessionData` does; returns it. */
export function checksItsLoads<T extends object>(store: T): T {
  checkingStores.add(store)
  return store
}

/** Whether `store` was marked by `checksItsLoads`: a custom store is not, and what it loads must be checked. */
export function loadsAreChecked(store: object): boolean {
  return checkingStores.has(store)
}

/**
 * Check a whole session as a store without record-level access returns it
 * (memory, remote, any custom store): broken turns and runs are named by their
 * position. One pass of `typeof` tests and a walk of each record for its depth
 * (`MAX_RECORD_DEPTH`); arrays are copied only when a record is left out.
 */
export function checkSessionData(data: SessionData, options: SessionLoadOptions | undefined, subject = `Session "${data.id}"`): SessionData {
  if (!Array.isArray(data.turns) || !Array.isArray(data.runs))
    throw new SessionStoreError(`${subject} has no turns and runs arrays`, 'corrupt', { sessionId: data.id, record: { problem: 'has no turns and runs arrays' } })
  const fields = sessionFieldsProblem(data)
  if (fields !== undefined)
    throw new SessionStoreError(`${subject} ${fields}`, 'corrupt', { sessionId: data.id, record: { problem: fields } })
  const records = corruptRecords(data.id, subject, options)
  // A shallow copy: a custom store may hand out its own object, which a skip must not change.
  const checked: SessionData = { ...data }
  const metadata = metadataProblem(data.metadata) ?? (nestsTooDeep(data.metadata) ? `has metadata that ${TOO_DEEP}` : undefined)
  if (metadata !== undefined) {
    records.report('metadata', 'its header', { problem: metadata }, () => rawText(data.metadata))
    delete checked.metadata
  }
  checked.turns = soundOnly(data.turns, withDepth(turnProblem), (turn, index, problem) =>
    records.report('turn', `turn ${index}`, { index, problem }, () => rawText(turn)))
  checked.runs = soundOnly(data.runs, withDepth(runProblem), (run, index, problem) =>
    records.report('run', `run ${index}`, { index, problem }, () => rawText(run)))
  return records.attach(checked)
}

/** What is wrong with a loaded session's own fields, which a handle reads as they are: its times, and the list a skip adds to. */
function sessionFieldsProblem(data: SessionData): string | undefined {
  if (!Number.isFinite(data.createdAt))
    return 'has no numeric createdAt'
  if (!Number.isFinite(data.updatedAt))
    return 'has no numeric updatedAt'
  if (data.skipped !== undefined && !Array.isArray(data.skipped))
    return 'has a skipped list that is not an array'
  return undefined
}

function withDepth(problemOf: (item: unknown) => string | undefined): (item: unknown) => string | undefined {
  return item => problemOf(item) ?? (nestsTooDeep(item) ? TOO_DEEP : undefined)
}

/** A skipped record's JSON, or, when it has none (too deep for `JSON.stringify`, cyclic), a note saying why. */
function rawText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  }
  catch (error) {
    return `(not serializable: ${error instanceof Error ? error.message : String(error)})`
  }
}

function soundOnly<T>(items: T[], problemOf: (item: unknown) => string | undefined, report: (item: T, index: number, problem: string) => void): T[] {
  let kept: T[] | undefined
  for (let i = 0; i < items.length; i++) {
    const problem = problemOf(items[i])
    if (problem === undefined) {
      kept?.push(items[i])
      continue
    }
    report(items[i], i, problem)
    kept ??= items.slice(0, i)
  }
  return kept ?? items
}
