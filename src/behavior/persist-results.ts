import type { ToolOutput } from '../core/tool-io'
import type { BehaviorPolicy } from './policy'
import { createHash, randomUUID } from 'node:crypto'
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { debugLog } from '../debug'
import { activeLimit } from '../knobs/behavior'

/** Bytes of a persisted result the model still sees inline. */
export const PERSIST_PREVIEW_BYTES = 2048

/** Tool call ids that are safe as file names as they are; any other id is named by its hash. */
const SAFE_ID = /^\w[\w.-]{0,127}$/

/** The file a tool call's payload is written to: `<dir>/<tool call id>.txt` (an id unsafe as a file name is hashed). */
export function persistedPath(dir: string, callId: string): string {
  const name = SAFE_ID.test(callId) ? callId : `id-${createHash('sha256').update(callId).digest('hex').slice(0, 32)}`
  return join(resolve(dir), `${name}.txt`)
}

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

/**
 * The stub a persisted result is replaced with: a fixed text, a function of
 * the payload and the path only, so the recorded turn (and every request that
 * sends it) keeps the same bytes.
 */
export function persistedStub(text: string, path: string): string {
  const size = Buffer.byteLength(text)
  const preview = utf8Prefix(text, PERSIST_PREVIEW_BYTES)
  const cut = preview.length < text.length
  return [
    '<persisted-output>',
    `This tool result was ${size} bytes, too large to keep in the conversation. The full output is saved at: ${path}`,
    'Read it with read_file (offset and limit page through it) when you need more than the preview.',
    '',
    `Preview (first ${Buffer.byteLength(preview)} bytes):`,
    cut ? `${preview}\n...` : preview,
    '</persisted-output>',
  ].join('\n')
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

/** Write through a temporary file and a rename, so a reader never sees half a payload. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`
  try {
    await writeFile(temporary, text, 'utf8')
    await rename(temporary, path)
  }
  catch (error) {
    await rm(temporary, { force: true }).catch(() => {})
    throw error
  }
}

/**
 * Remove the oldest payloads (by mtime, then name) under `dir` until the rest
 * total at most `cap` bytes. The one just written is never removed, so a
 * single payload larger than the cap still lands.
 */
export async function evictOldest(dir: string, cap: number, keep: string): Promise<void> {
  const names = (await readdir(dir)).filter(name => name.endsWith('.txt'))
  const files = (await Promise.all(names.map(async (name) => {
    const path = join(dir, name)
    const info = await stat(path).catch(() => undefined)
    return info?.isFile() ? { path, name, size: info.size, mtime: info.mtimeMs } : undefined
  }))).filter(file => file !== undefined)
  let total = files.reduce((sum, file) => sum + file.size, 0)
  if (total <= cap)
    return
  files.sort((a, b) => a.mtime - b.mtime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const file of files) {
    if (total <= cap)
      break
    if (file.path === keep)
      continue
    await rm(file.path, { force: true })
    total -= file.size
  }
}

/**
 * `persistResults`: with `persistThreshold` and `persistDir`, a tool result
 * larger than the threshold (UTF-8 bytes, after the host's transforms) is
 * written to `<persistDir>/<tool call id>.txt` and replaced, in the session
 * and on every request, by a stub with a preview and the path, which the
 * model can `read_file`. Results with media, and tools in
 * `persistExcludeTools`, are left alone. When the file cannot be written the
 * result stays inline as it was: nothing is lost, and the failure is logged
 * under `ZIDANE_DEBUG`. `persistMaxBytes` trims the directory after each write.
 */
export const persistResults: BehaviorPolicy<null> = {
  name: 'persist-results',
  enabled: behavior => activeLimit(behavior.persistThreshold) !== undefined && typeof behavior.persistDir === 'string' && behavior.persistDir !== '',
  async result({ behavior, call, result, isError }) {
    if (behavior.persistExcludeTools?.includes(call.name))
      return
    const text = textOf(result)
    if (text === undefined || Buffer.byteLength(text) <= behavior.persistThreshold!)
      return
    const dir = resolve(behavior.persistDir!)
    const path = persistedPath(dir, call.callId)
    try {
      await mkdir(dir, { recursive: true })
      await writeAtomically(path, text)
    }
    catch (error) {
      debugLog(`the result of ${call.name} (${call.callId}) could not be persisted; it stays inline`, error)
      return
    }
    const cap = activeLimit(behavior.persistMaxBytes)
    if (cap !== undefined)
      await evictOldest(dir, cap, path).catch(error => debugLog(`persistMaxBytes: ${dir} could not be trimmed`, error))
    return { decision: { type: 'replace', result: persistedStub(text, path), isError } }
  },
}
