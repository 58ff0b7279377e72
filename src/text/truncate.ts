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

/** How many bytes the UTF-8 sequence led by `byte` takes (1 for an ASCII byte or a byte no sequence starts with). */
function sequenceLength(byte: number): number {
  if (byte >= 0xF0)
    return byte <= 0xF4 ? 4 : 1
  if (byte >= 0xE0)
    return 3
  return byte >= 0xC2 ? 2 : 1
}

/**
 * The last code point boundary at or before `index` in UTF-8 `bytes`,
 * judged from the bytes before it only, so it also finds where a stream's
 * complete characters end when `index` is the end of what has arrived.
 * Invalid bytes are left alone (a decoder replaces them); only a sequence
 * that `index` would split is cut off.
 */
export function utf8BoundaryAtOrBefore(bytes: Uint8Array, index: number): number {
  const end = Math.min(bytes.length, Math.max(0, Math.floor(index)))
  // A sequence is at most four bytes: its lead byte is at most three back.
  for (let back = 1; back <= Math.min(4, end); back++) {
    const byte = bytes[end - back]
    if (isContinuation(byte))
      continue
    return sequenceLength(byte) > back ? end - back : end
  }
  return end
}

/** The first code point boundary at or after `index` in UTF-8 `bytes` (skips at most three continuation bytes). */
export function utf8BoundaryAtOrAfter(bytes: Uint8Array, index: number): number {
  let at = Math.min(bytes.length, Math.max(0, Math.floor(index)))
  const start = at
  while (at < bytes.length && at - start < 3 && isContinuation(bytes[at]))
    at++
  return at
}

/** The longest prefix of UTF-8 `bytes` of at most `limit` bytes that ends on a code point boundary. */
export function truncateUtf8<T extends Uint8Array>(bytes: T, limit: number): T {
  if (bytes.length <= limit)
    return bytes
  return bytes.subarray(0, utf8BoundaryAtOrBefore(bytes, limit)) as T
}

/** The longest suffix of UTF-8 `bytes` of at most `limit` bytes that starts on a code point boundary. */
export function truncateUtf8Tail<T extends Uint8Array>(bytes: T, limit: number): T {
  if (bytes.length <= limit)
    return bytes
  return bytes.subarray(utf8BoundaryAtOrAfter(bytes, bytes.length - Math.max(0, Math.floor(limit)))) as T
}

/** The longest prefix of `text` whose UTF-8 encoding is at most `maxBytes`, splitting no code point. */
export function truncateTextToUtf8(text: string, maxBytes: number): string {
  // A UTF-16 unit encodes to at most three bytes: short strings need no encoding.
  if (text.length * 3 <= maxBytes)
    return text
  const encoded = Buffer.from(text, 'utf8')
  return encoded.length <= maxBytes ? text : truncateUtf8(encoded, maxBytes).toString('utf8')
}
