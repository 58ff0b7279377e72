/**
 * What a store writes, a load must read back. Every load refuses a turn, run
 * or metadata nested past `MAX_RECORD_DEPTH` (`record-checks.ts`), so every
 * built-in store makes its JSON here and refuses, before anything is stored,
 * a write holding such a record: `SessionStoreError('corrupt')` naming the
 * record and the limit, with `record.problem` (and `record.index` for a turn
 * of a batch) as the load would have put it. `JSON.stringify` writes records
 * up to 3,000 or 4,000 levels deep, so without this check a record nested
 * between 1,000 levels and that was stored, then refused by every load (which
 * lost its whole log line in the file store); a deeper one overflowed the
 * stack with an untyped `RangeError`. A session handle applies the same rule
 * before it hands a record to a custom store (`assertWithinRecordDepth`).
 *
 * The depth is read off the JSON text itself (`jsonTextNestsTooDeep`), so it
 * is the depth a load will find: a `toJSON` method or a dropped field counts
 * as it is stored, and a value the check would walk differently (a class
 * instance serialized by its `toJSON`, with cycles inside) is never refused by
 * mistake. The code is `corrupt`, not `io`: the refusal is the same on every
 * attempt, so nothing should retry it.
 */

import { SessionStoreError } from '../../errors'
import { groupDigits } from '../../text/group-digits'
import { truncateText } from '../../text/truncate'
import { jsonTextNestsTooDeep, MAX_RECORD_DEPTH, nestsTooDeep, runProblem, TOO_DEEP, turnProblem } from './record-checks'

/** The records a write carries, to check their depth and name the one too deep. */
export interface WrittenRecords {
  kind: 'turn' | 'run' | 'metadata'
  /** The records, in the order they are written (a turn is named by its position). */
  records: readonly unknown[]
  /**
   * Levels of the written JSON above each record: 0 for a record written
   * alone (a SQLite row), 1 for one in a wrapping object (`{"run":{…}}`), 2
   * for one in an array in a wrapping object (`{"turns":[{…}]}`).
   */
  levelsAbove: number
  /** Position in the write of the first of `records`, when a batch is written record by record (a SQLite row per turn). Default 0. */
  firstIndex?: number
}

/**
 * `JSON.stringify(value)`, once sure that no record of `written` in it nests
 * past `MAX_RECORD_DEPTH`; otherwise `SessionStoreError('corrupt')` naming
 * it, and nothing is written. Other failures of `JSON.stringify` (a cycle, a
 * BigInt) are thrown as they are. `sessionId` is absent for a session the
 * store has not named yet.
 */
export function writableJson(sessionId: string | undefined, value: unknown, written: WrittenRecords): string {
  // `undefined` for a value JSON has no text for (a `toJSON` answering `undefined`): the store fails on it as before.
  let text: string | undefined
  try {
    text = JSON.stringify(value) as string | undefined
  }
  catch (error) {
    // Past 3,000 to 4,000 levels `JSON.stringify` runs out of stack before there is any text to measure.
    if (error instanceof RangeError) {
      const index = written.records.findIndex(record => nestsTooDeep(record))
      if (index !== -1)
        throw tooDeepToWrite(sessionId, written, index)
    }
    throw error
  }
  if (text !== undefined && jsonTextNestsTooDeep(text, written.levelsAbove))
    throw tooDeepToWrite(sessionId, written, deepRecordIndex(written.records))
  return text as string
}

/**
 * The same rule for a store that does not make its JSON here (a custom one),
 * as its loads are checked (`checkSessionData` walks the loaded records as
 * objects): a record of `written` nested past `MAX_RECORD_DEPTH` is refused
 * with the same error before the store is handed it. Walked without
 * recursion, in time linear in the records (shared objects included).
 */
export function assertWithinRecordDepth(sessionId: string | undefined, written: Omit<WrittenRecords, 'levelsAbove'>): void {
  const index = written.records.findIndex(record => nestsTooDeep(record))
  if (index !== -1)
    throw tooDeepToWrite(sessionId, written, index)
}

/**
 * Refuse, before any store is handed it, a turn or run that a load would
 * refuse: a `createdAt` of `NaN` or `Infinity` (JSON writes it as `null`), a
 * role or status no load knows, content that is not an array. Without this a
 * host's hand-made record was stored, then failed every strict load of the
 * session (and was dropped by every skip). The loop's own records always
 * pass; the check is a few tests per record and block.
 */
export function assertLoadableRecords(sessionId: string, written: Omit<WrittenRecords, 'levelsAbove'>): void {
  if (written.kind === 'metadata')
    return
  const check = written.kind === 'turn' ? turnProblem : runProblem
  for (let index = 0; index < written.records.length; index++) {
    const problem = check(written.records[index])
    if (problem === undefined)
      continue
    const record = written.records[index]
    const subject = written.kind === 'run' ? `run ${describeId(record)}` : `turn ${index + (written.firstIndex ?? 0)} of the write (${describeId(record)})`
    throw new SessionStoreError(
      `Could not write to session "${sessionId}": ${subject} ${problem}, which no load reads back; nothing was written`,
      'corrupt',
      { sessionId, record: written.kind === 'turn' ? { index: index + (written.firstIndex ?? 0), problem } : { problem } },
    )
  }
}

/** Which record is too deep: one record is measured alone only once the whole write was found too deep. */
function deepRecordIndex(records: readonly unknown[]): number {
  if (records.length <= 1)
    return 0
  return records.findIndex((record) => {
    try {
      return jsonTextNestsTooDeep(JSON.stringify(record) ?? '')
    }
    catch {
      // A `toJSON` that answers differently the second time: the record cannot be told, the write is refused all the same.
      return false
    }
  })
}

function tooDeepToWrite(sessionId: string | undefined, written: Omit<WrittenRecords, 'levelsAbove'>, index: number): SessionStoreError {
  const record = written.records[index]
  const position = index + (written.firstIndex ?? 0)
  const problem = written.kind === 'metadata' ? `has metadata that ${TOO_DEEP}` : TOO_DEEP
  let subject: string
  if (written.kind === 'metadata')
    subject = 'its metadata'
  else if (written.kind === 'run')
    subject = `run ${describeId(record)}`
  else
    subject = index === -1 ? 'a turn of the write' : `turn ${position} of the write (${describeId(record)})`
  return new SessionStoreError(
    `Could not write to ${sessionId === undefined ? 'a new session' : `session "${sessionId}"`}: ${subject} is nested more than ${groupDigits(MAX_RECORD_DEPTH)} levels deep `
    + '(objects and arrays inside one another), more than a load reads back; nothing was written. '
    + 'Keep such a value flatter, or store it as a JSON string',
    'corrupt',
    { sessionId, record: written.kind === 'turn' && index !== -1 ? { index: position, problem } : { problem } },
  )
}

function describeId(record: unknown): string {
  const id = (record as { id?: unknown } | null | undefined)?.id
  return typeof id === 'string' ? JSON.stringify(id.length > 80 ? `${truncateText(id, 80)}…` : id) : 'without an id'
}
