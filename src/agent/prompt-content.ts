import type { PromptPart, SessionContentBlock, SystemNoteText } from '../core/content'

/** Text a reader would see: anything but whitespace. */
const VISIBLE = /\S/

/** A prompt (text or parts) plus its system notes, as the content blocks of one user turn. */
export function promptContent(prompt: string | PromptPart[], notes: readonly SystemNoteText[] = []): SessionContentBlock[] {
  const content: SessionContentBlock[] = typeof prompt === 'string'
    ? [{ type: 'text', text: prompt }]
    : prompt.map(part => ({ ...part }) as SessionContentBlock)
  for (const { text, ...note } of notes)
    content.push({ type: 'text', text, origin: 'system-note', systemNote: note })
  return content
}

/**
 * Whether a prompt says nothing: empty or whitespace-only text, or parts that
 * are all such text (an empty list included). No API accepts a message with
 * no content, so `run()` treats such a prompt as no prompt at all.
 */
export function isBlankPrompt(prompt: string | PromptPart[]): boolean {
  if (typeof prompt === 'string')
    return !VISIBLE.test(prompt)
  return prompt.every(part => part?.type === 'text' && typeof part.text === 'string' && !VISIBLE.test(part.text))
}
