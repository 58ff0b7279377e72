/**
 * Text the model (or a server) wrote, as a message repeats it back: whole
 * when short, else its start and its length. Whoever wrote it needs no more
 * to recognize it, and a megabyte of it must not come back as a megabyte.
 */

import { groupDigits } from './group-digits'
import { truncateText } from './truncate'

/** Characters of the model's own input (a path, a pattern, a name) a message repeats back to it. */
export const ECHO_CHARS = 200

/** `text` whole, or its first `limit` characters, `…` and its length. */
export function clipEcho(text: string, limit = ECHO_CHARS): string {
  return text.length > limit ? `${truncateText(text, limit)}… (${text.length} characters)` : text
}

/** `text` in quotes, or its first `limit` characters quoted with `…` and its length after the quotes (a name no tool has). */
export function quoteClipped(text: string, limit = ECHO_CHARS): string {
  return text.length <= limit ? `"${text}"` : `"${truncateText(text, limit)}…" (${groupDigits(text.length)} characters)`
}
