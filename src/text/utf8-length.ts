/**
 * The length of a string in UTF-8 bytes, as a `TextEncoder` would write it
 * (a lone surrogate counts as the three bytes of U+FFFD). Counted without
 * encoding: on Node 20 each `TextEncoder.encode` call allocates a buffer of
 * its own, which costs more than the count itself for the short texts the
 * loop measures on every turn.
 */

import { Buffer } from 'node:buffer'

export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}
