/**
 * Cutting text to a limit without splitting a code point. Every place the
 * SDK shortens a string or a byte buffer goes through these four functions,
 * so no output ends in half an emoji: a string cut never leaves a lone
 * surrogate at its edge, and a UTF-8 cut never leaves a partial sequence.
 * A cut that would land inside a code point moves to the code point's start
 * (or, for a tail, past its end), so the result is at most `limit` long and
 * at most one code point shorter than the limit allows. Lone surrogates
 * already in the input are kept as they are; cleaning them is the wire's job.
 */

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xD800 && unit <= 0xDBFF
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xDC00 && unit <= 0xDFFF
}

/** Where a cut to at most `limit` UTF-16 units from the start of `text` should fall. */
export function textCutIndex(text: string, limit: number): number {
  const max = Math.max(0, Math.floor(limit))
  if (text.length <= max)
    return text.length
  // A cut between a high and a low surrogate would orphan both: keep the pair whole by leaving it out.
  return max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) && isLowSurrogate(text.charCodeAt(max)) ? max - 1 : max
}

/** The longest prefix of `text` of at most `limit` UTF-16 units that splits no code point. */
export function truncateText(text: string, limit: number): string {
  const end = textCutIndex(text, limit)
  return end === text.length ? text : text.slice(0, end)
}

/** The longest suffix of `text` of at most `limit` UTF-16 units that splits no code point. */
export function truncateTextTail(text: string, limit: number): string {
  const max = Math.max(0, Math.floor(limit))
  if (text.length <= max)
    return text
  let start = text.length - max
  if (start < text.length && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1)))
    start++
  return text.slice(start)
}

function isContinuation(byte: number): boolean {
  return (byte & 0xC0) === 0x80
}

/** How many bytes the UTF-8 sequence led by `byte` takes (1 for an ASCII byte or a stray byte). */
function sequenceLength(byte: number): number {
  if (byte >= 0xF0 && byte <= 0xF4)
    return 4
  if (byte >= 0xE0)
    return byte <= 0xEF ? 3 : 1
  return byte >= 0xC2 ? 2 : 1
}

/**
 * Where a cut to at most `limit` bytes from the start of UTF-8 `bytes` should
 * fall: never after a sequence's lead byte and before its last byte.
 */
export function utf8CutIndex(bytes: Uint8Array, limit: number): number {
  const max = Math.max(0, Math.floor(limit))
  if (bytes.length <= max)
    return bytes.length
  // Walk back over at most three continuation bytes to the sequence's lead byte.
  let lead = max
  while (lead > 0 && max - lead < 3 && isContinuation(bytes[lead]))
    lead--
  if (lead === max || isContinuation(bytes[lead]))
    return max
  return lead + sequenceLength(bytes[lead]) <= max ? max : lead
}

/** The longest prefix of UTF-8 `bytes` of at most `limit` bytes that ends on a code point boundary. */
export function truncateUtf8<T extends Uint8Array>(bytes: T, limit: number): T {
  const end = utf8CutIndex(bytes, limit)
  return (end === bytes.length ? bytes : bytes.subarray(0, end)) as T
}

/**
 * Where a tail of at most `limit` bytes of UTF-8 `bytes` should start: on a
 * lead byte, never on a continuation byte of a sequence that began earlier.
 */
export function utf8TailStart(bytes: Uint8Array, limit: number): number {
  const max = Math.max(0, Math.floor(limit))
  if (bytes.length <= max)
    return 0
  let start = bytes.length - max
  // At most three continuation bytes follow a lead byte; more are stray bytes a decoder replaces anyway.
  for (let step = 0; step < 3 && start < bytes.length && isContinuation(bytes[start]); step++)
    start++
  return start
}

/** The longest suffix of UTF-8 `bytes` of at most `limit` bytes that starts on a code point boundary. */
export function truncateUtf8Tail<T extends Uint8Array>(bytes: T, limit: number): T {
  const start = utf8TailStart(bytes, limit)
  return (start === 0 ? bytes : bytes.subarray(start)) as T
}
