/**
 * Text made well-formed: a JavaScript string can hold a lone surrogate (half
 * of a UTF-16 pair), which no UTF-8 encoder can write faithfully. Used
 * wherever such text leaves the process: request bodies, spans, answers.
 */

/** Node 20 has both methods; the compiler's ES2023 library does not declare them yet. */
interface WellFormedString {
  isWellFormed: () => boolean
  toWellFormed: () => string
}

/** `text` with every lone surrogate replaced by U+FFFD; `text` itself when it has none. */
export function wellFormedText(text: string): string {
  const checked = text as unknown as WellFormedString
  return checked.isWellFormed() ? text : checked.toWellFormed()
}
