import type { BlockOf, SessionContentBlock, SessionMessage, SessionTurn } from '../core/content'
import type { TurnUsage } from '../core/stats'
import type { CompactTrigger } from '../hooks/compaction-hooks'
import type { AutoCompact } from '../knobs/compaction-knobs'
import type { InjectedMessage, PolicyRunView } from './policy'
import { autoCompactConfig } from '../knobs/compaction-knobs'
import { truncateUtf8 } from '../text/truncate'
import { DEFAULT_READ_MAX_FILE_BYTES } from '../tools/file-limits'
import { wireMessageOf } from '../wire/messages'
import { mediaSlots } from '../wire/stages/media-ageing'
import { mediaMarker } from '../wire/stages/media-marker'
import { compactTail } from '../wire/stages/tail-compaction'
import { restoredSkills } from './compact-skill-restore'
import { messagesBytes, summaryOutputCeiling, summaryRefusal, utf8Bytes } from './summary-limits'

/**
 * Whether a turn's input has crossed the auto-compaction threshold: its
 * prompt tokens (uncached input plus cache reads and writes) at or above
 * `threshold × contextWindow`. `false` when auto-compaction is off or no
 * window is known. The loop's own trigger; hosts that compact between runs
 * can ask the same question.
 */
export function shouldAutoCompact(usage: Pick<TurnUsage, 'input' | 'cacheRead' | 'cacheCreation'>, contextWindow: number | undefined, config: AutoCompact | undefined): boolean {
  const resolved = autoCompactConfig(config)
  if (!resolved || contextWindow === undefined || !(contextWindow > 0))
    return false
  return promptTokens(usage) >= resolved.threshold * contextWindow
}

/** Every input token of a turn, cached or not. */
export function promptTokens(usage: Pick<TurnUsage, 'input' | 'cacheRead' | 'cacheCreation'>): number {
  return usage.input + (usage.cacheRead ?? 0) + (usage.cacheCreation ?? 0)
}

/** The instruction appended to the conversation for the summary call. */
export function summaryPrompt(kept: number): string {
  return [
    'The conversation above is about to be compacted to save context space.',
    `Write a summary of everything before the last ${kept} messages that lets you continue the task without them:`,
    'the goal, what was done and found, decisions and their reasons, files touched, open problems and next steps.',
    'Answer with the summary text only; do not call tools.',
  ].join(' ')
}

/** Tools whose `path` input names a file the run worked on. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['read_file', 'write_file', 'edit', 'multi_edit'])
/** Most files put back after a summary, and most bytes of each. */
const RESTORE_MAX_FILES = 5
const RESTORE_MAX_BYTES = 16_384

/** Where the tail the summary keeps begins: `keep` wire messages from the end, moved back so it never opens on tool results. */
export function tailStart(turns: readonly SessionTurn[], keep: number): number {
  let seen = 0
  let start = turns.length
  for (let i = turns.length - 1; i >= 0 && seen < keep; i--) {
    if (wireMessageOf(turns[i])) {
      seen++
      start = i
    }
  }
  while (start > 0 && turns[start].role === 'user' && turns[start].content.some(block => block.type === 'tool_result'))
    start--
  return start
}

/**
 * Paths of the files the given turns' tool calls read or wrote, most recent first, at most `limit`. The
 * calls are the model's: a turn of 40,000 `read_file` calls of distinct paths (they need not exist) took
 * 32 s when each path was looked up in the list; a set keeps it linear, and the walk stops at `limit`.
 */
export function touchedFiles(turns: readonly SessionTurn[], limit = Number.POSITIVE_INFINITY): string[] {
  const seen = new Set<string>()
  for (let i = turns.length - 1; i >= 0 && seen.size < limit; i--) {
    for (const block of turns[i].content) {
      if (block.type !== 'tool_call' || !FILE_TOOLS.has(block.name))
        continue
      const path = (block.input as { path?: unknown }).path
      if (typeof path === 'string' && path !== '')
        seen.add(path)
      if (seen.size >= limit)
        break
    }
  }
  return [...seen]
}

/**
 * The current text of the files the summarized turns worked on, within
 * `budget` bytes in all: a file that does not fit is left out (the summary
 * still names it, and the model can read it again).
 */
async function restoredFiles(run: PolicyRunView, paths: readonly string[], budget: number): Promise<{ blocks: SessionContentBlock[], files: string[] }> {
  const blocks: SessionContentBlock[] = []
  const files: string[] = []
  const decoder = new TextDecoder('utf-8', { fatal: true })
  let left = budget
  for (const path of paths) {
    let text: string
    try {
      // A file `read_file` could not show either is not put back: the path is the model's, and reading a log of
      // gigabytes whole to keep 16 KiB of it is work out of all proportion.
      const bytes = await run.execution.readFile(path, { maxBytes: DEFAULT_READ_MAX_FILE_BYTES })
      // Cut on a character boundary: a cut through a multi-byte character failed the strict decode, and a
      // UTF-8 file over 16 KiB was left out as if it were binary.
      const head = truncateUtf8(bytes, RESTORE_MAX_BYTES)
      text = decoder.decode(head)
      if (bytes.length > head.length)
        text += `\n[… ${bytes.length - head.length} more bytes; read the file for the rest]`
    }
    catch {
      // Gone, unreadable or binary: the summary still names it, and the model can read it again.
      continue
    }
    const block: SessionContentBlock = { type: 'text', origin: 'injected', text: `Current content of ${path} (restored after compaction):\n${text}` }
    const size = utf8Bytes(block.text)
    if (size > left)
      continue
    left -= size
    blocks.push(block)
    files.push(path)
  }
  return { blocks, files }
}

/** What one compaction produced: the message to add and the summary block in it. */
export interface Compaction {
  readonly message: InjectedMessage
  readonly block: BlockOf<'compact-summary'>
}

/**
 * Summarize the turns before the kept tail with a real model call and build
 * the user message that carries the `compact-summary` block (and the files
 * put back after it). Returns `undefined` when there is nothing older than
 * the tail to summarize, when the call fails (`compact:end` carries the
 * error), or when the summary is refused (`compact:end` carries `refused`
 * and a `CompactionRefusedError`): then no marker is written, the turns stay
 * as they are and the run goes on without a summary.
 *
 * The call's output ceiling is `summaryOutputCeiling` of the window. A
 * summary cut off at that ceiling, larger than it, empty, or no smaller than
 * the messages it replaces is refused, and the files put back with a kept
 * summary share what it saved, so a compaction always makes the request
 * smaller. `cheap` sends the older turns alone with their tool outputs
 * stubbed, instead of the cached conversation: the way to summarize a
 * conversation the provider just refused as too long.
 */
export async function compactConversation(
  run: PolicyRunView,
  options: { trigger: CompactTrigger, keepTurns: number, restore: boolean, inputTokens?: number, cheap?: boolean },
): Promise<Compaction | undefined> {
  const turns = run.turns
  const start = tailStart(turns, options.keepTurns)
  const older = turns.slice(0, start).filter(turn => wireMessageOf(turn) !== undefined)
  if (older.length === 0)
    return undefined
  const replacesTurnIds = older.map(turn => turn.id)
  await run.emit('compact:start', {
    trigger: options.trigger,
    ...(options.inputTokens === undefined ? {} : { inputTokens: options.inputTokens }),
    ...(run.contextWindow === undefined ? {} : { contextWindow: run.contextWindow }),
    replacesTurnIds,
  })
  const kept = turns.length - start
  const visible = visibleMessages(older)
  const replacedBytes = messagesBytes(visible)
  const ceiling = summaryOutputCeiling(run.contextWindow)
  let answer
  try {
    const messages = options.cheap ? compactTail(visible, 0, 0).slice() : undefined
    answer = await run.complete({ prompt: [{ type: 'text', text: summaryPrompt(kept), origin: 'injected' }], purpose: 'compact', maxTokens: ceiling, ...(messages ? { messages } : {}) })
  }
  catch (error) {
    await run.emit('compact:end', { trigger: options.trigger, replacesTurnIds, restoredFiles: [], error: error as Error })
    return undefined
  }
  const refused = summaryRefusal(answer, ceiling, replacedBytes)
  if (refused) {
    await run.emit('compact:end', { trigger: options.trigger, replacesTurnIds, usage: answer.usage, restoredFiles: [], refused: refused.reason, error: refused })
    return undefined
  }
  const block: BlockOf<'compact-summary'> = {
    type: 'compact-summary',
    summary: answer.text.trim(),
    compactedAt: await run.clock.now(),
    model: answer.model,
    replacesTurnIds,
    usage: answer.usage,
  }
  const markers = summarizedMedia(visible)
  const saved = replacedBytes - utf8Bytes(block.summary) - (markers ? utf8Bytes(markers.text) : 0)
  // Active skills' instructions first (they steer the work), then the files, sharing what the summary saved.
  const skills = options.restore ? restoredSkills(older, saved - 1) : { blocks: [], skills: [], used: 0 }
  // Reading the files is I/O of this phase: it goes through the run's effects.
  const restored = options.restore ? await run.effects.step('compact-summary:restore-files', () => restoredFiles(run, touchedFiles(older, RESTORE_MAX_FILES), saved - 1 - skills.used)) : { blocks: [], files: [] }
  await run.emit('compact:end', { trigger: options.trigger, summary: block.summary, replacesTurnIds, usage: block.usage, restoredFiles: restored.files, ...(skills.skills.length > 0 ? { restoredSkills: skills.skills } : {}) })
  return { block, message: { content: [block, ...(markers ? [markers] : []), ...skills.blocks, ...restored.blocks], injected: 'compact' } }
}

/** Most media markers a compaction message lists: the newest, so a long run's summary stays small. */
export const MAX_SUMMARIZED_MEDIA_MARKERS = 64

/**
 * The images and documents of the turns a summary replaces leave the wire
 * with them. Each leaves the marker every other stage leaves, so the model can
 * still read it back with `read_file`; past the cap, the oldest are counted.
 */
function summarizedMedia(visible: readonly SessionMessage[]): BlockOf<'text'> | undefined {
  const seen = new Set<string>()
  const lines: string[] = []
  for (const slot of mediaSlots(visible)) {
    const line = mediaMarker(slot.media)
    if (!seen.has(line)) {
      seen.add(line)
      lines.push(line)
    }
  }
  if (lines.length === 0)
    return undefined
  const shown = lines.slice(-MAX_SUMMARIZED_MEDIA_MARKERS)
  const dropped = lines.length - shown.length
  const head = dropped > 0
    ? `Media from the summarized turns (the newest ${shown.length}; ${dropped} older ones are not listed):`
    : 'Media from the summarized turns:'
  return { type: 'text', origin: 'injected', text: [head, ...shown].join('\n') }
}

/**
 * The older turns as the wire shows them: their messages, less the turns an
 * earlier summary among them already replaced.
 */
function visibleMessages(older: readonly SessionTurn[]): SessionMessage[] {
  let replaced: ReadonlySet<string> = new Set()
  for (const turn of older) {
    for (const block of turn.content) {
      if (block.type === 'compact-summary')
        replaced = new Set(block.replacesTurnIds)
    }
  }
  return older.filter(turn => !replaced.has(turn.id)).map(turn => wireMessageOf(turn)!)
}
