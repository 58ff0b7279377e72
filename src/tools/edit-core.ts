/**
 * What `edit` and `multi_edit` share: read the file through the execution
 * context, check the session's read state (`requireReadBeforeEdit`), apply
 * every replacement in memory, and write once, so a batch is all or nothing.
 * Every failure reports the `failed` outcome and throws, which the loop turns
 * into an error result: the outcome and `isError` always agree.
 *
 * Every size the model controls is capped before the work it would cost: the
 * file (checked with `stat` before it is read), the edited content (computed
 * from the match count before it is built), the number of edits and the
 * characters a batch searches in all.
 */

import type { Session } from '../session/session'
import type { EditApplication, EditSpec, MatchMode } from './edit-match'
import type { ReadStateEntry } from './read-state'
import type { ToolContext } from './types'
import { Buffer, isUtf8 } from 'node:buffer'
import { fileErrorCode } from '../contexts/errors'
import { executionContextOf } from '../contexts/from-tool-context'
import { truncateText } from '../text/truncate'
import { applyEdit } from './edit-match'
import { nearestMatch } from './edit-preview'
import { fileToolBehaviorOf } from './file-behavior'
import { decodeText, describeFileError, displayPath, formatBytes, hasUtf8Bom, looksBinary, UTF8_BOM } from './file-content'
import { DEFAULT_READ_MAX_FILE_BYTES } from './file-limits'
import { contentHash, countDriftRefusal, readStateOf, recordRead, shellCommandSince } from './read-state'

/** Below this similarity the closest text is not worth showing. */
const PREVIEW_MIN_SCORE = 0.35
const PREVIEW_MAX_LINES = 20
/** Characters of one line the closest-text preview shows: a minified file is one line of megabytes. */
const PREVIEW_LINE_CHARS = 500

/** Edits one `multi_edit` call may carry. */
export const MULTI_EDIT_MAX_EDITS = 1000

/**
 * Work one call may do, in characters searched: the file's length once per
 * edit, plus `OCCURRENCE_WORK` per replacement made (about a second in all):
 * 8 edits of a 32 MiB file, 256 of a 1 MiB one. The edits run synchronously,
 * so a batch without this bound would hold the whole process for as long as
 * it takes.
 */
export const EDIT_WORK_BUDGET = 256 * 1024 * 1024

/** What one replacement costs next to one character searched (finding it, then building the result around it). */
const OCCURRENCE_WORK = 16

/** Limits of `runEdits`. */
export interface EditLimitOptions {
  /** Largest file edited, and largest content an edit may leave. Default 32 MiB, `read_file`'s limit. */
  maxFileBytes?: number
}

type Guard
  = | { state: 'unguarded' }
    | { state: 'fresh' }
    | { state: 'drifted', session: Session, entry: ReadStateEntry }

/** Apply `edits` to the file at `path` in order; `label` names the tool in messages. */
export async function runEdits(ctx: ToolContext, path: string, edits: readonly EditSpec[], label: 'edit' | 'multi_edit', options: EditLimitOptions = {}): Promise<string> {
  const context = executionContextOf(ctx)
  const resolved = context.resolvePath(path)
  const shown = displayPath(context, resolved)
  const fail = (message: string): never => {
    ctx.reportOutcome('failed')
    throw new Error(message)
  }
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_READ_MAX_FILE_BYTES
  if (edits.length > MULTI_EDIT_MAX_EDITS)
    fail(`Refused: ${label} takes at most ${MULTI_EDIT_MAX_EDITS} edits per call, and this one has ${edits.length}. Nothing was read or written; split the edits into several calls.`)

  const tooLarge = (size: string) => `${shown} is too large to edit (${size}, limit ${formatBytes(maxFileBytes)}). `
    + 'Change it with a shell command (`sed`, a script) instead.'
  // Refused before a byte is read: loading the file whole is the first cost of an edit.
  const info = await context.stat(resolved).catch((error: unknown) => fail(describeFileError(error, shown)))
  if (info?.type === 'file' && info.size > maxFileBytes)
    fail(tooLarge(formatBytes(info.size)))
  // Capped whatever the stat said: it may have grown since, and a file under /proc reports 0.
  const bytes = await context.readFile(resolved, { maxBytes: maxFileBytes }).catch((error: unknown) => {
    if (fileErrorCode(error) === 'EFBIG')
      return fail(tooLarge(`more than ${formatBytes(maxFileBytes)}, though it reported ${formatBytes(info?.size ?? 0)}`))
    const reason = describeFileError(error, shown)
    return fail(reason.startsWith('File not found') ? `${reason}. To create a new file, use write_file.` : reason)
  })
  if (bytes.length > maxFileBytes)
    fail(tooLarge(formatBytes(bytes.length)))
  if (looksBinary(bytes))
    fail(`${shown} is a binary file; ${label} changes text files only.`)
  // The text is written back whole: every byte of another encoding would come back as U+FFFD.
  if (!isUtf8(bytes)) {
    fail(`${shown} is not UTF-8 text (a legacy encoding such as Latin-1 or Windows-1252?); ${label} rewrites the whole file as UTF-8 and would replace every non-UTF-8 byte in it, so nothing was changed. `
      + 'Make the change with a shell command that keeps the encoding (`sed`, or `iconv` to UTF-8 and back).')
  }
  // The decoder drops a leading byte order mark; it is put back on write.
  const bom = hasUtf8Bom(bytes) ? UTF8_BOM : ''
  const original = decodeText(bytes)
  const guard = checkReadState(ctx, resolved, contentHash(bytes), shown, fail)

  // One edit of the largest file allowed always fits.
  const budget = Math.max(EDIT_WORK_BUDGET, maxFileBytes)
  if (edits.length * original.length > budget)
    fail(tooMuchWork(edits.length, original.length, budget, Math.floor(budget / (original.length + OCCURRENCE_WORK)), shown))

  let content = original
  let contentBytes = Buffer.byteLength(original, 'utf8')
  let replacements = 0
  let work = 0
  const modes = new Set<MatchMode>()
  for (const [index, edit] of edits.entries()) {
    // Counted as it goes too: an earlier edit may have made the file longer, or replaced a million times.
    if (work + content.length > budget)
      fail(tooMuchWork(edits.length, content.length, budget, Math.floor(budget / (work / index)), shown))
    work += content.length
    const applied = applyEdit(content, edit, { contentBytes, maxBytes: maxFileBytes })
    if (!applied.ok) {
      if (guard.state === 'drifted' && applied.reason !== 'too-large')
        fail(driftRefusal(guard, shown))
      const which = label === 'multi_edit' ? `Edit ${index + 1} of ${edits.length} (edits[${index}]) failed: ` : ''
      const atomic = label === 'multi_edit' ? ` No edits were applied; ${shown} is unchanged. Each edit applies to the text as left by the edits before it.` : ''
      fail(`${which}${missMessage(applied, content, edit, shown, maxFileBytes)}${atomic}`)
    }
    else {
      work += OCCURRENCE_WORK * applied.count
      content = applied.content
      contentBytes = applied.bytes
      replacements += applied.count
      modes.add(applied.mode)
    }
  }
  // Under drift only a verbatim match is trusted: a recovered match may sit on moved text.
  if (guard.state === 'drifted' && (modes.has('line-endings') || modes.has('mixed-line-endings')))
    fail(driftRefusal(guard, shown))

  if (content === original) {
    ctx.reportOutcome('noop')
    return `No change needed: the ${label === 'edit' ? 'replacement leaves' : 'edits leave'} ${shown} unchanged.`
  }

  const written = bom + content
  await context.writeFile(resolved, written).catch((error: unknown) => fail(describeFileError(error, shown)))
  if (ctx.session)
    recordRead(ctx.session, { path: resolved, hash: contentHash(written), source: 'edit' })
  ctx.reportOutcome('edited')

  const parts = [`Edited ${shown}: ${summary(edits.length, replacements, label)}.`]
  if (modes.has('line-numbers'))
    parts.push('(Line-number prefixes copied from read_file output were removed before matching.)')
  if (modes.has('line-endings'))
    parts.push('(The file uses CRLF line endings; old_string and new_string were matched and written with CRLF.)')
  if (modes.has('mixed-line-endings'))
    parts.push('(The file mixes CRLF and LF line endings; old_string was matched with line endings ignored, and each line of new_string was written with the ending of the line it replaces.)')
  if (guard.state === 'drifted') {
    parts.push(`Note: ${shown} had changed since you last read it (something other than your own edits wrote to it). `
      + 'Your old_string still matched the current content exactly, so the edit was applied; re-read the file before relying on its other parts.')
  }
  return parts.join('\n')
}

function tooMuchWork(editCount: number, length: number, budget: number, perCall: number, shown: string): string {
  return `Refused: ${editCount} edits on ${shown} (${length} characters) are more than one call searches: the file's length times the number of edits, plus the replacements made, may be at most ${budget} characters. `
    + `Nothing was written; split the edits into calls of at most ${Math.max(1, perCall)}, or make the change with a shell command.`
}

function summary(editCount: number, replacements: number, label: 'edit' | 'multi_edit'): string {
  const occurrences = `${replacements} replacement${replacements === 1 ? '' : 's'}`
  return label === 'edit' ? occurrences : `${editCount} edit${editCount === 1 ? '' : 's'} applied (${occurrences})`
}

function checkReadState(ctx: ToolContext, resolved: string, hash: string, shown: string, fail: (message: string) => never): Guard {
  const session = ctx.session
  if (!session || !fileToolBehaviorOf(ctx.behavior).requireReadBeforeEdit)
    return { state: 'unguarded' }
  const entry = readStateOf(session).get(resolved)
  if (!entry)
    return fail(`Refused: ${shown} has not been read in this session. Call read_file on it first, then retry the edit with text copied from that output.`)
  return entry.hash === hash ? { state: 'fresh' } : { state: 'drifted', session, entry }
}

/**
 * Refuse an edit on a file that changed since it was read. The first refusal
 * asks for a re-read; later ones say so more firmly and name the likely
 * writer, because a model told "re-read" twice tends to route around the
 * guard with shell one-liners instead.
 */
function driftRefusal(guard: Extract<Guard, { state: 'drifted' }>, shown: string): string {
  const count = countDriftRefusal(guard.session, guard.entry)
  if (count === 1) {
    return `Refused: ${shown} has changed since you last read it, and old_string does not match its current content. `
      + 'Call read_file on it again and retry with text copied from that fresh output.'
  }
  const command = shellCommandSince(guard.session, guard.entry)
  const writer = command !== undefined
    ? `The likely writer is the shell command you ran after your last read: \`${command}\`.`
    : 'The likely writer is outside this conversation: a formatter or file watcher, an editor auto-saving, or another process.'
  return `Refused again (${count} times): ${shown} keeps changing between your reads and your edits. ${writer} `
    + 'Call read_file on it now and build old_string from that output only; do not reuse earlier text, and do not rewrite the file through shell commands to get around this check.'
}

function missMessage(applied: Exclude<EditApplication, { ok: true }>, content: string, edit: EditSpec, shown: string, maxFileBytes: number): string {
  if (applied.reason === 'ambiguous') {
    // The first lines only: a one-character old_string can occur millions of times.
    const more = applied.count > applied.lines.length ? `, … (${applied.count - applied.lines.length} more)` : ''
    return `old_string occurs ${applied.count} times in ${shown} (lines ${applied.lines.join(', ')}${more}). `
      + 'Include more surrounding lines to make it unique, or set replace_all: true to replace every occurrence.'
  }
  if (applied.reason === 'too-large') {
    return `Replacing ${applied.count} occurrence${applied.count === 1 ? '' : 's'} would make ${shown} ${formatBytes(applied.bytes)}, over the ${formatBytes(maxFileBytes)} limit of edited files; nothing was changed. `
      + 'Make the change with a shell command (`sed`, a script) instead.'
  }
  const head = `old_string was not found in ${shown}.`
  const near = nearestMatch(content, edit.old_string)
  if (!near || near.score < PREVIEW_MIN_SCORE)
    return `${head} Nothing in the file resembles it; read the file again to see its current content.`
  const shownLines = near.lines.slice(0, PREVIEW_MAX_LINES)
  const numbered = shownLines.map((line, i) => `${near.startLine + i}\t${clipLine(line)}`).join('\n')
  const more = near.lines.length > shownLines.length ? `\n… (${near.lines.length - shownLines.length} more lines)` : ''
  return `${head} The closest text is lines ${near.startLine}-${near.endLine} (${Math.round(near.score * 100)}% similar):\n`
    + `${numbered}${more}\n`
    + 'Copy old_string exactly from the file, indentation and whitespace included, and retry.'
}

/** A preview line cut to `PREVIEW_LINE_CHARS`, saying how much was left out. */
function clipLine(line: string): string {
  if (line.length <= PREVIEW_LINE_CHARS)
    return line
  const kept = truncateText(line, PREVIEW_LINE_CHARS)
  return `${kept}… (${line.length - kept.length} more characters on this line)`
}
