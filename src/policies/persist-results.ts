import type { ToolOutput } from '../core/tool-io'
import type { AgentBehavior } from '../knobs/behavior'
import type { BehaviorPolicy, PolicyRunView, ReplaceResultDecision, ResultPhaseContext } from './policy'
import { Buffer } from 'node:buffer'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { debugLog } from '../debug'
import { activeLimit } from '../knobs/behavior'
import { truncateText, truncateUtf8 } from '../text/truncate'
import { sniffFile } from '../tools/file-content'
import { DEFAULT_READ_MAX_FILE_BYTES } from '../tools/file-limits'
import { conversationTag, evictOldest, persistedPath, turnTag } from './persist-files'

/** Bytes of a persisted result the model still sees inline. */
export const PERSIST_PREVIEW_BYTES = 2048

/** The longest start of `text` that fits in `bytes` UTF-8 bytes without splitting a character. */
export function utf8Prefix(text: string, bytes: number): string {
  let used = 0
  let end = 0
  for (const char of text) {
    const size = Buffer.byteLength(char)
    if (used + size > bytes)
      break
    used += size
    end += char.length
  }
  return text.slice(0, end)
}

/** Largest payload written: the largest text file read_file loads, so the stub's promise to page it holds. */
export const PERSIST_MAX_FILE_BYTES = DEFAULT_READ_MAX_FILE_BYTES

/** What was written for a result: how many bytes, and whether read_file shows them as text. */
export interface PersistedFile {
  readonly path: string
  /** Bytes written: the whole payload, or its first `PERSIST_MAX_FILE_BYTES`. */
  readonly bytes: number
  /** Whether read_file reads the file as text (no NUL bytes or image/PDF signature at its start). */
  readonly readable: boolean
}

/**
 * The stub a persisted result is replaced with: a fixed text, a function of
 * the payload and what was written only, so the recorded turn (and every
 * request that sends it) keeps the same bytes. It promises only what holds:
 * a cut payload says how much was kept, and one read_file would not show as
 * text says so instead of offering paging.
 */
export function persistedStub(text: string, file: PersistedFile): string {
  const size = Buffer.byteLength(text)
  const preview = utf8Prefix(text, PERSIST_PREVIEW_BYTES)
  const cut = preview.length < text.length
  const saved = file.bytes < size
    ? `Its first ${file.bytes} bytes are saved at: ${file.path} (the last ${size - file.bytes} bytes were not kept: read_file loads files up to ${PERSIST_MAX_FILE_BYTES} bytes).`
    : `The full output is saved at: ${file.path}`
  const reading = file.readable
    ? 'Read it with read_file (offset and limit page through it by line; a line longer than read_file\'s byte cap comes back cut) when you need more than the preview.'
    : 'It looks like binary data, which read_file does not show as text: the preview below is all of it you can read here.'
  return [
    '<persisted-output>',
    `This tool result was ${size} bytes, too large to keep in the conversation. ${saved}`,
    reading,
    '',
    `Preview (first ${Buffer.byteLength(preview)} bytes):`,
    cut ? `${preview}\n...` : preview,
    '</persisted-output>',
  ].join('\n')
}

/** The bytes written for a payload: all of it, or its longest start within `PERSIST_MAX_FILE_BYTES` that splits no character. */
export function persistedBytes(text: string): Buffer {
  // A UTF-16 unit is at least one byte: the first PERSIST_MAX_FILE_BYTES units hold every byte that can be kept.
  return truncateUtf8(Buffer.from(truncateText(text, PERSIST_MAX_FILE_BYTES), 'utf8'), PERSIST_MAX_FILE_BYTES)
}

/** The text of a result made of text only (a string, or text blocks joined by newlines); `undefined` when it carries media. */
function textOf(result: ToolOutput): string | undefined {
  if (typeof result === 'string')
    return result
  const texts: string[] = []
  for (const block of result) {
    if (block.type !== 'text')
      return undefined
    texts.push(block.text)
  }
  return texts.join('\n')
}

/** Write through a temporary file (`id` names it) and a rename, so a reader never sees half a payload. */
async function writeAtomically(path: string, bytes: Uint8Array, id: string): Promise<void> {
  const temporary = `${path}.${id}.tmp`
  try {
    await writeFile(temporary, bytes)
    await rename(temporary, path)
  }
  catch (error) {
    await rm(temporary, { force: true }).catch(() => {})
    throw error
  }
}

/** Whether a payload was written since the last trim, so the turn's end trims `persistDir` once. */
export interface PersistResultsState {
  readonly trim: boolean
}

/**
 * `persistResults`: with `persistThreshold` and `persistDir`, a tool result
 * larger than the threshold (UTF-8 bytes, after the host's transforms) is
 * written to a file of its own under `persistDir` (named by
 * `persistedPath`: conversation, turn, digest, call id) and replaced, in the
 * session and on every request, by a stub with a preview and the path, which
 * the model can `read_file`. A payload over `PERSIST_MAX_FILE_BYTES` is cut to
 * that, and its stub says so. Results with media, and tools in
 * `persistExcludeTools`, are left alone. When the file cannot be written the
 * result stays inline as it was: nothing is lost, and the failure is logged
 * under `ZIDANE_DEBUG`. `persistMaxBytes` trims this conversation's files
 * at the end of each turn that wrote one, never those of that turn.
 */
export const persistResults: BehaviorPolicy<PersistResultsState | null> = {
  name: 'persist-results',
  enabled: behavior => activeLimit(behavior.persistThreshold) !== undefined && typeof behavior.persistDir === 'string' && behavior.persistDir !== '',
  // Synchronous unless there is something to write: a promise would make the runner race it against the run's signal for every call.
  result(ctx) {
    const { behavior, call, result } = ctx
    if (behavior.persistExcludeTools?.includes(call.name))
      return
    const text = textOf(result)
    if (text === undefined || Buffer.byteLength(text) <= behavior.persistThreshold!)
      return
    return persist(ctx, text)
  },
  // Once per turn, not per write: a trim lists the directory and stats each file, so trimming after each of a
  // batch's 2,000 results took two minutes (1,000: 28 s). The batch's own files were never trimmed anyway, so
  // what is left at the turn's end is the same.
  // Synchronous on a turn that wrote nothing (the state starts as `null`, and a run saved before this flag has that).
  afterTurn({ behavior, run, turnId, state }) {
    if (state?.trim !== true)
      return undefined
    return trimDir(behavior, run, turnId)
  },
}

/** Trim this conversation's files to `persistMaxBytes`, keeping those of `turnId`. */
async function trimDir(behavior: Readonly<AgentBehavior>, run: PolicyRunView, turnId: string): Promise<{ state: PersistResultsState }> {
  const cap = activeLimit(behavior.persistMaxBytes)
  if (cap !== undefined) {
    const dir = resolve(behavior.persistDir!)
    const owner = { conversation: conversationTag(run.session?.id ?? run.runId), keepTurn: turnTag(turnId) }
    await run.effects.step('persist-results:evict', () => evictOldest(dir, cap, owner)).catch(error => debugLog(`persistMaxBytes: ${dir} could not be trimmed`, error))
  }
  return { state: { trim: false } }
}

/** Write one result that passed the threshold, and the stub that replaces it (none when the write failed). */
async function persist(ctx: ResultPhaseContext<PersistResultsState | null>, text: string): Promise<{ decision: ReplaceResultDecision, state?: PersistResultsState } | undefined> {
  const { run, behavior, turnId, call, isError } = ctx
  const dir = resolve(behavior.persistDir!)
  const bytes = persistedBytes(text)
  const conversation = conversationTag(run.session?.id ?? run.runId)
  const turn = turnTag(turnId)
  const path = persistedPath(dir, { conversation, turn, callId: call.callId }, bytes)
  const temporaryId = run.effects.id()
  try {
    // Through the run's effects: a journaling host records the write, and a replay does not repeat it.
    await run.effects.step('persist-results:write', async () => {
      await mkdir(dir, { recursive: true })
      await writeAtomically(path, bytes, temporaryId)
    })
  }
  catch (error) {
    debugLog(`the result of ${call.name} (${call.callId}) could not be persisted; it stays inline`, error)
    return undefined
  }
  const stub = persistedStub(text, { path, bytes: bytes.length, readable: sniffFile(bytes).kind === 'text' })
  const decision: ReplaceResultDecision = { type: 'replace', result: stub, isError }
  return activeLimit(behavior.persistMaxBytes) === undefined || ctx.state?.trim === true ? { decision } : { decision, state: { trim: true } }
}
