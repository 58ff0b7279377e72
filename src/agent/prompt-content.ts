import type { PromptPart, SessionContentBlock } from '../session/content'
import type { SystemNoteText } from './options'

/** A prompt (text or parts) plus its system notes, as the content blocks of one user turn. */
export function promptContent(prompt: string | PromptPart[], notes: readonly SystemNoteText[] = []): SessionContentBlock[] {
  const content: SessionContentBlock[] = typeof prompt === 'string'
    ? [{ type: 'text', text: prompt }]
    : prompt.map(part => ({ ...part }) as SessionContentBlock)
  for (const { text, ...note } of notes)
    content.push({ type: 'text', text, origin: 'system-note', systemNote: note })
  return content
}
