/**
 * The file store's on-disk format (v1): one JSONL log per session, append-only.
 *
 * ```
 * {"v":1,"type":"session","id":"…","createdAt":1764460800000,"metadata":{…},"at":1764460800012}
 * {"type":"turns","at":1764460801000,"turns":[{…},{…}]}    one line per appendTurns call
 * {"type":"run","at":1764460802000,"run":{…}}              one line per saveRun call
 * ```
 *
 * A line counts only once its trailing newline is written: the newline is the
 * commit mark. Loading replays the lines in order (turns concatenate, a run
 * replaces the earlier record with its id) and ignores a last line with no
 * newline, which is what a crash in the middle of a write leaves behind.
 * `at` is the time of the write; the last one is the session's `updatedAt`.
 * Blank lines are skipped so hand-edited logs stay loadable. Every record is
 * checked (`record-checks.ts`): a complete line that is not a record, or a
 * broken turn or run in one, fails the load unless it skips broken records
 * (then a bad turn costs only itself, not its line's other turns). So does a
 * line over `LOG_LINE_MAX_BYTES` (never held in memory), and one whose turn or
 * run nests past `MAX_RECORD_DEPTH` (the whole line: its turns' own JSON could
 * not be written out); the store never writes such a line (`writableJson`),
 * so only a log written by other means holds one. The header is never
 * skipped, only its broken metadata: without a header the log is not this
 * session's. Every later format version must still load
 * `test/fixtures/sessions/v1/`.
 */

import type { SessionTurn } from '../../core/content'
import type { SessionData, SessionLoadOptions, SessionRun } from '../types'
import type { CorruptRecords } from './corrupt-records'
import type { LogLine } from './log-file'
import { SessionStoreError } from '../../errors'
import { groupDigits } from '../../text/group-digits'
import { SESSION_FORMAT_VERSION } from '../types'
import { corruptRecords } from './corrupt-records'
import { LOG_LINE_MAX_BYTES } from './log-file'
import { metadataProblem, nestsTooDeep, runProblem, TOO_DEEP, turnProblem } from './record-checks'
import { assertReadableVersion, upsertRun } from './records'
import { writableJson } from './writable-json'

/*
 * The lines a write appends. Each refuses, before anything is written, a
 * record its load would refuse for its depth (`writableJson`).
 */

export function headerLine(id: string, createdAt: number, metadata: Record<string, unknown> | undefined, at: number): string {
  const header = { v: SESSION_FORMAT_VERSION, type: 'session', id, createdAt, metadata, at }
  return `${writableJson(id, header, { kind: 'metadata', records: metadata === undefined ? [] : [metadata], levelsAbove: 1 })}\n`
}

export function turnsLine(id: string, turns: readonly SessionTurn[], at: number): string {
  return `${writableJson(id, { type: 'turns', at, turns }, { kind: 'turn', records: turns, levelsAbove: 2 })}\n`
}

export function runLine(id: string, run: SessionRun, at: number): string {
  return `${writableJson(id, { type: 'run', at, run }, { kind: 'run', records: [run], levelsAbove: 1 })}\n`
}

/** Rebuilds a session from its log's lines, fed in order by `forEachLine`. */
export interface LogReplay {
  line: (line: LogLine) => void
  /** The session, or `undefined` when the log held no complete line (a create that crashed before its header was written). */
  result: () => SessionData | undefined
}

/**
 * Replay a log line by line. Throws `corrupt` for a complete line that is not
 * a valid record (unless `options.onCorrupt` skips it) and
 * `unsupported_version` for a log written by a newer format.
 */
export function logReplay(id: string, options?: SessionLoadOptions): LogReplay {
  const records = corruptRecords(id, `Session log "${id}"`, options)
  let data: SessionData | undefined
  const runPositions = new Map<string, number>()
  return {
    line(line) {
      if (!('bytes' in line)) {
        const problem = tooLong(line.length)
        if (data === undefined)
          throw corrupt(id, line.number, problem)
        records.report('line', `line ${line.number}`, { line: line.number, problem }, () => line.head.toString('utf8'))
        return
      }
      const text = line.bytes.toString('utf8')
      if (text.trim() === '')
        return
      if (data === undefined) {
        data = sessionFromHeader(parseRecord(text, id, line.number), id, line.number, text, records)
        return
      }
      const record = parseLine(text, line.number, records)
      if (record !== undefined)
        applyRecord(data, runPositions, record, text, line.number, records)
    },
    result: () => data && records.attach(data),
  }
}

/**
 * Check a log's first line (its header) before writing to it: `corrupt` when
 * it is not a header for `id`, `unsupported_version` when a newer format
 * wrote it. Its metadata is not looked at: appending needs none of it, and a
 * load that skipped broken metadata can still be written to.
 */
export function checkHeaderLine(line: LogLine, id: string): void {
  if (!('bytes' in line))
    throw corrupt(id, line.number, tooLong(line.length))
  const text = line.bytes.toString('utf8')
  sessionFromHeader(parseRecord(text, id, line.number), id, line.number, text)
}

/**
 * Check that a line the store is about to write can be loaded back: one over
 * `LOG_LINE_MAX_BYTES` could not be, and would cost a skip on every load, so
 * the write fails instead. The code is `corrupt` with the problem a load would
 * name, as for a record nested too deep (`writable-json.ts`): the refusal is
 * the same on every attempt, so nothing should retry it (a remote store
 * retries `io`).
 */
export function assertWritableLine(bytes: Buffer, id: string): void {
  if (bytes.length > LOG_LINE_MAX_BYTES) {
    throw new SessionStoreError(
      `Could not write to session "${id}": the record is ${groupDigits(bytes.length)} bytes of JSON, `
      + `over the ${groupDigits(LOG_LINE_MAX_BYTES)} one log line may hold (a load could not read it back); nothing was written`,
      'corrupt',
      { sessionId: id, record: { problem: tooLong(bytes.length) } },
    )
  }
}

function tooLong(length: number): string {
  return `is ${groupDigits(length)} bytes long, over the ${groupDigits(LOG_LINE_MAX_BYTES)} a log line may hold`
}

function parseRecord(text: string, id: string, lineNumber: number): Record<string, unknown> {
  let value: unknown
  try {
    // An editor may save the log with a UTF-8 byte order mark: it is not JSON, but it is not damage either.
    value = JSON.parse(lineNumber === 1 && text.charCodeAt(0) === 0xFEFF ? text.slice(1) : text)
  }
  catch (cause) {
    throw corrupt(id, lineNumber, 'is not valid JSON', cause)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw corrupt(id, lineNumber, 'is not a JSON object')
  return value as Record<string, unknown>
}

/** A line after the header as a record object, or `undefined` when it was broken and skipped. */
function parseLine(text: string, lineNumber: number, records: CorruptRecords): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  }
  catch {
    records.report('line', `line ${lineNumber}`, { line: lineNumber, problem: 'is not valid JSON' }, () => text)
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    records.report('line', `line ${lineNumber}`, { line: lineNumber, problem: 'is not a JSON object' }, () => text)
    return undefined
  }
  return value as Record<string, unknown>
}

/**
 * The session a header starts. Broken metadata is reported to `records` (a
 * skip drops just the metadata); without `records` it is not looked at.
 */
function sessionFromHeader(header: Record<string, unknown>, id: string, lineNumber: number, text: string, records?: CorruptRecords): SessionData {
  if (header.type !== 'session')
    throw corrupt(id, lineNumber, 'should be the session header')
  // Version first: a newer writer may have changed every other field.
  assertReadableVersion(header.v, id)
  if (header.id !== id)
    throw corrupt(id, lineNumber, `names session ${JSON.stringify(header.id)}`)
  if (typeof header.createdAt !== 'number')
    throw corrupt(id, lineNumber, 'has no numeric createdAt')
  let metadata = header.metadata
  if (records && metadata !== undefined) {
    const problem = metadataProblem(metadata) ?? (nestsTooDeep(metadata, 0, true) ? `has metadata that ${TOO_DEEP}` : undefined)
    if (problem !== undefined) {
      records.report('metadata', `line ${lineNumber}`, { line: lineNumber, problem }, () => text)
      metadata = undefined
    }
  }
  return {
    version: header.v as number,
    id,
    createdAt: header.createdAt,
    updatedAt: typeof header.at === 'number' ? header.at : header.createdAt,
    ...(metadata === undefined ? {} : { metadata: metadata as Record<string, unknown> }),
    turns: [],
    runs: [],
  }
}

function applyRecord(data: SessionData, runPositions: Map<string, number>, record: Record<string, unknown>, text: string, lineNumber: number, records: CorruptRecords): void {
  const place = `line ${lineNumber}`
  const rejectLine = (problem: string) => records.report('line', place, { line: lineNumber, problem }, () => text)
  if (record.type === 'turns') {
    if (!Array.isArray(record.turns))
      return rejectLine('has no turns array')
    // The line, its turns array, then each turn: two levels above a turn.
    if (nestsTooDeep(record.turns, 1, true))
      return rejectLine(`has a turn that ${TOO_DEEP}`)
    const turns = record.turns as unknown[]
    for (let index = 0; index < turns.length; index++) {
      const problem = turnProblem(turns[index])
      if (problem === undefined)
        data.turns.push(turns[index] as SessionTurn)
      else
        records.report('turn', `${place}, turn ${index}`, { line: lineNumber, index, problem }, () => JSON.stringify(turns[index]))
    }
  }
  else if (record.type === 'run') {
    const problem = runProblem(record.run) ?? (nestsTooDeep(record.run, 0, true) ? TOO_DEEP : undefined)
    if (problem !== undefined)
      return rejectLine(`has a run that ${problem}`)
    upsertRun(data.runs, runPositions, record.run as SessionRun)
  }
  else {
    return rejectLine(`has unknown record type ${JSON.stringify(record.type)}`)
  }
  if (typeof record.at === 'number')
    data.updatedAt = record.at
}

function corrupt(id: string, lineNumber: number, problem: string, cause?: unknown): SessionStoreError {
  return new SessionStoreError(`Session log "${id}", line ${lineNumber} ${problem}`, 'corrupt', { sessionId: id, cause, record: { line: lineNumber, problem } })
}
