/**
 * A running tool's progress reports (`ToolContext.progress`), delivered to
 * `tool:progress` (and through it to `agent.stream()`) without ever holding
 * the tool up, and without letting a chatty tool flood either.
 */

import type { ToolProgress, ToolProgressUpdate } from '../core/tool-io'
import type { ToolHookContext } from '../tools/hooks'
import type { RunContext } from './run-context'
import { TOOL_PROGRESS_LIMITS } from '../core/tool-io'
import { debugLog } from '../debug'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { extendContext } from '../hooks/context'
import { truncateText } from '../text/truncate'
import { hookTimeout } from './stream-turn'

/** What the loop holds for one call: `report` is the tool's `ctx.progress`, `close` ends the call's reporting. */
export interface ProgressChannel {
  report: (update: ToolProgressUpdate) => void
  close: () => void
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

/** A tool's update as hooks receive it: plain text becomes a `'message'`, fields of the wrong type are left out. */
function normalize(update: ToolProgressUpdate): ToolProgress {
  if (typeof update === 'string')
    return { kind: 'message', text: cut(update) }
  // `kind` and `tool` are cut like `text`: a script names its tool calls as it likes.
  const progress: ToolProgress = { kind: typeof update.kind === 'string' && update.kind !== '' ? cut(update.kind) : 'message' }
  if (typeof update.text === 'string')
    progress.text = cut(update.text)
  if (typeof update.tool === 'string')
    progress.tool = cut(update.tool)
  if (isCount(update.line))
    progress.line = update.line
  if (isCount(update.completed))
    progress.completed = update.completed
  if (isCount(update.total))
    progress.total = update.total
  return progress
}

function cut(text: string): string {
  // Never inside a surrogate pair: a codemode script prints what the model wrote, and a lone half reaches every
  // stream reader as a broken character.
  return text.length > TOOL_PROGRESS_LIMITS.maxTextChars ? `${truncateText(text, TOOL_PROGRESS_LIMITS.maxTextChars)}…` : text
}

/**
 * The progress channel of one call. One report is delivered at a time: the
 * hooks (a stream's reader among them) set the pace, and reports that come
 * meanwhile are merged into the newest. Delivery starts on a later microtask,
 * so a tool reporting in a tight loop costs one event, not one per report.
 */
export function progressChannel(run: RunContext, base: ToolHookContext): ProgressChannel {
  let open = true
  let delivering = false
  let pending: ToolProgress | undefined
  let skipped = 0
  let delivered = 0

  const deliver = async (): Promise<void> => {
    // `close()` may run while a delivery is awaited: `pending` is then cleared, which ends the loop.
    while (pending !== undefined && delivered < TOOL_PROGRESS_LIMITS.maxEvents) {
      const next = pending
      const merged = skipped
      pending = undefined
      skipped = 0
      delivered += 1
      const ctx = extendContext(base, extendContext(next, { sequence: delivered, skipped: merged }))
      await callHookBounded(run.hooks, 'tool:progress', ctx, { timeoutMs: hookTimeout(run), failClosed: false })
        .catch(error => debugLog('tool:progress hook failed', error))
    }
    delivering = false
  }

  return {
    report(update) {
      // After the call ended, past the cap, or with nobody listening, a report goes nowhere.
      if (!open || delivered >= TOOL_PROGRESS_LIMITS.maxEvents || !hasHookHandlers(run.hooks, 'tool:progress'))
        return
      let progress: ToolProgress
      try {
        progress = normalize(update)
      }
      catch (error) {
        // A getter that throws must not fail the tool: progress is advisory.
        debugLog('ctx.progress got an unreadable update', error)
        return
      }
      if (pending !== undefined)
        skipped += 1
      pending = progress
      if (delivering)
        return
      delivering = true
      void Promise.resolve().then(deliver)
    },
    close() {
      open = false
      pending = undefined
    },
  }
}
