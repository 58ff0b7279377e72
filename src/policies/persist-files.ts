import { createHash } from 'node:crypto'
import { readdir, rm, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'

/**
 * The files `persistResults` writes, and the only ones its eviction removes.
 *
 * A payload is named
 * `tool-result-<conversation>-<turn>-<digest>-<call id>.txt`:
 *
 * - `<conversation>`: 12 hex digits of the SHA-256 of the session id (the run
 *   id without a session), so sessions sharing a directory never write the
 *   same name, and each trims only its own files;
 * - `<turn>`: 8 hex digits of the SHA-256 of the id of the turn whose calls
 *   the results answer, so eviction can tell the files of the batch in
 *   progress, which it never removes;
 * - `<digest>`: 24 hex digits of the SHA-256 of the bytes written, so two
 *   calls of one turn that share an id get two files (or one file holding the
 *   same bytes);
 * - `<call id>`: the tool call id for people reading the directory, with
 *   every character outside `[A-Za-z0-9_.-]` replaced by `_` and cut to 64
 *   characters. The name never holds a separator, so no call id can reach
 *   outside the directory.
 */

/** The start every persisted payload's name shares. */
export const PERSISTED_PREFIX = 'tool-result-'

const NAME = /^tool-result-([0-9a-f]{12})-([0-9a-f]{8})-[0-9a-f]{24}-[\w.-]{1,64}\.txt$/

const UNSAFE = /[^\w.-]/g

function hex(text: string | Uint8Array, digits: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, digits)
}

/** The tag of a conversation (a session id, or a run id) in payload names. */
export function conversationTag(conversationId: string): string {
  return hex(conversationId, 12)
}

/** The tag of a turn in payload names. */
export function turnTag(turnId: string): string {
  return hex(turnId, 8)
}

/** Where a payload is written: its name depends on the conversation, the turn, the call id and the bytes. */
export function persistedPath(dir: string, at: { readonly conversation: string, readonly turn: string, readonly callId: string }, bytes: Uint8Array): string {
  const call = at.callId.slice(0, 64).replace(UNSAFE, '_') || 'call'
  return join(resolve(dir), `${PERSISTED_PREFIX}${at.conversation}-${at.turn}-${hex(bytes, 24)}-${call}.txt`)
}

/** The conversation and turn tags of a payload's name, or `undefined` when zidane did not name it. */
export function parsePersistedName(name: string): { readonly conversation: string, readonly turn: string } | undefined {
  const match = NAME.exec(name)
  return match ? { conversation: match[1], turn: match[2] } : undefined
}

/**
 * Trim one conversation's payloads under `dir` to at most `cap` bytes: its
 * files are summed and the oldest (by mtime, then name) removed until the
 * rest fit. Only names `parsePersistedName` reads as this conversation's are
 * touched; the files of turn `keepTurn` (the batch being written) are counted
 * but never removed, so a batch larger than the cap still lands whole.
 * Returns the paths removed.
 */
export async function evictOldest(dir: string, cap: number, owner: { readonly conversation: string, readonly keepTurn: string }): Promise<string[]> {
  const mine = (await readdir(dir)).flatMap((name) => {
    const tags = parsePersistedName(name)
    return tags?.conversation === owner.conversation ? [{ name, turn: tags.turn }] : []
  })
  const files = (await Promise.all(mine.map(async ({ name, turn }) => {
    const path = join(dir, name)
    const info = await stat(path).catch(() => undefined)
    return info?.isFile() ? { path, name, turn, size: info.size, mtime: info.mtimeMs } : undefined
  }))).filter(file => file !== undefined)
  let total = files.reduce((sum, file) => sum + file.size, 0)
  const removed: string[] = []
  if (total <= cap)
    return removed
  files.sort((a, b) => a.mtime - b.mtime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const file of files) {
    if (total <= cap)
      break
    if (file.turn === owner.keepTurn)
      continue
    await rm(file.path, { force: true })
    removed.push(file.path)
    total -= file.size
  }
  return removed
}
