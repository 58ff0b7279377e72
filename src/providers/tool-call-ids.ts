/**
 * Tool-call ids come from whichever provider made the call: `toolu_…` from
 * Anthropic, `call_…` from OpenAI, `call.odd:id/1` or very long composite ids
 * from gateways, empty ids from servers that never sent one. Each API accepts
 * its own alphabet and length, so every wire builder sends the id through the
 * rule of its API.
 *
 * A rewritten id is a pure function of the original: a call and its result
 * (converted separately, possibly many turns apart) always get the same wire
 * id, and the same conversation always serializes to the same bytes, so the
 * prompt cache survives. The readable part of the id is kept as a prefix and a
 * 96-bit hash of the whole original follows, so two different ids never meet
 * on one wire id. Ids the API already accepts are sent unchanged, and session
 * turns always keep the original ids.
 */

import { createHash, randomUUID } from 'node:crypto'

/** `[A-Za-z0-9_-]`: the alphabet every tool-calling API takes (`\w` is ASCII-only without the `u` flag). */
const ID_ALPHABET = /^[\w-]+$/
const OUTSIDE_ALPHABET = /[^\w-]+/g
const ALPHANUMERIC = /^[A-Z0-9]+$/i
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** 24 hex digits: 96 bits, so distinct ids of one conversation never share a hash. */
const HASH_DIGITS = 24
/** The prefix of an id with nothing readable left after sanitizing (an empty or all non-ASCII id). */
const FALLBACK_PREFIX = 'call'

function sha256(id: string): Buffer {
  // Hashed as JSON text: the UTF-8 encoding of a lone surrogate is lossy (both `'\uD800'` and
  // `'\uD801'` would become U+FFFD and share a hash); its JSON escape is not.
  return createHash('sha256').update(JSON.stringify(id)).digest()
}

/**
 * `id` when it is made of `[A-Za-z0-9_-]` and at most `maxLength` long;
 * otherwise its sanitized start (invalid runs become `_`) joined to a hash of
 * the whole id, within `maxLength` (which must leave room for the 24-digit hash).
 */
export function fitToolCallId(id: string, maxLength: number): string {
  if (id.length > 0 && id.length <= maxLength && ID_ALPHABET.test(id))
    return id
  const hash = sha256(id).toString('hex').slice(0, HASH_DIGITS)
  const prefix = id.replace(OUTSIDE_ALPHABET, '_').slice(0, maxLength - HASH_DIGITS - 1)
  return `${prefix || FALLBACK_PREFIX}_${hash}`
}

/**
 * `id` when it is exactly `length` ASCII letters and digits; otherwise that
 * many base-62 digits of its hash. For APIs (Mistral's) that take nothing
 * else: there is no room for a readable prefix.
 */
export function fitAlphanumericToolCallId(id: string, length: number): string {
  if (id.length === length && ALPHANUMERIC.test(id))
    return id
  const digest = sha256(id)
  let out = ''
  for (let i = 0; i < length; i++)
    out += BASE62[digest[i] % BASE62.length]
  return out
}

/**
 * A new id for a call whose server sent none it could keep (missing, empty,
 * not a string, or reused): `prefix`, `_` and 24 hex digits. Made inside the
 * model call, so a durable run journals it with the turn.
 */
export function freshToolCallId(prefix: 'call' | 'toolu'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 24)}`
}
