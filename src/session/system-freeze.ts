import type { AgentClock } from '../core/clock'
import type { FrozenPromptSections, SessionTurn, SystemNoteText, SystemPromptSnapshot } from '../core/content'
import { DEFAULT_AGENT_CLOCK } from '../core/clock'

export type { FrozenPromptSections, SystemPromptSnapshot }

/**
 * Keep a conversation's system prompt byte-stable across runs and agent
 * rebuilds, so prompt caches (and replayed reasoning) stay valid.
 */
export interface SystemFreezeOptions {
  /** The frozen prompt. When set, it is sent instead of the freshly composed one. */
  system?: string
  /** With `system` set: notes to append to this run's prompt turn (ahead of `systemNotes`), e.g. `catalogChangeNotes`. */
  notes?: (fresh: string, sections: FrozenPromptSections) => readonly SystemNoteText[]
  /** Without `system`: receives the fresh prompt so the host can store it as the frozen one. */
  onCapture?: (fresh: string, sections: FrozenPromptSections) => void | Promise<void>
}

/** The base prompt followed by each section, separated by blank lines. */
export function composeSystemPrompt(base: string, sections: FrozenPromptSections = {}): string {
  const parts = [base, ...Object.values(sections).filter(text => text.trim().length > 0)]
  return parts.join('\n\n')
}

/** A `role: 'system'` turn that stores a frozen prompt in a session (never sent to a model as a message). */
export async function systemSnapshotTurn(
  prompt: string,
  options: { key?: string, sections?: FrozenPromptSections, clock?: AgentClock } = {},
): Promise<SessionTurn> {
  const clock = options.clock ?? DEFAULT_AGENT_CLOCK
  const capturedAt = await clock.now()
  const snapshot: SystemPromptSnapshot = { key: options.key ?? 'default', capturedAt }
  if (options.sections)
    snapshot.sections = { ...options.sections }
  return { id: clock.randomUUID(), role: 'system', content: [{ type: 'text', text: prompt }], createdAt: capturedAt, systemSnapshot: snapshot }
}

/** The latest snapshot for a key (the last one recorded wins), or `undefined`. */
export function latestSystemSnapshot(turns: readonly SessionTurn[], key = 'default'): { prompt: string, snapshot: SystemPromptSnapshot } | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]
    if (turn.role !== 'system' || turn.systemSnapshot?.key !== key)
      continue
    const text = turn.content.find(block => block.type === 'text')
    if (text?.type === 'text')
      return { prompt: text.text, snapshot: turn.systemSnapshot }
  }
  return undefined
}

/**
 * Notes that tell the model which appended sections changed since a prompt
 * was frozen: one note per added, changed or removed section, carrying the
 * section's current text, in the order of the current sections (then removals).
 */
export function catalogChangeNotes(previous: FrozenPromptSections | undefined, current: FrozenPromptSections): SystemNoteText[] {
  const before = previous ?? {}
  const notes: SystemNoteText[] = []
  for (const [name, text] of Object.entries(current)) {
    if (!(name in before))
      notes.push({ kind: 'catalog-change', id: name, text: `A new "${name}" section now applies:\n\n${text}` })
    else if (before[name] !== text)
      notes.push({ kind: 'catalog-change', id: name, text: `The "${name}" section has changed. It now reads:\n\n${text}` })
  }
  for (const name of Object.keys(before)) {
    if (!(name in current))
      notes.push({ kind: 'catalog-change', id: name, text: `The "${name}" section no longer applies; disregard it.` })
  }
  return notes
}
