/**
 * Tool-call ids come from whichever provider made the call: `toolu_…` from
 * Anthropic, `call_…` from OpenAI, composite or very long ids from gateways,
 * empty ids from servers that never sent one. Chat Completions APIs take at
 * most 40 characters and some servers choke on anything but `[A-Za-z0-9_-]`,
 * so such ids are replaced on the wire.
 *
 * The replacement is a hash of the original id: a pure function, so a call and
 * its result (converted separately, possibly many turns apart) always get the
 * same wire id, and the same conversation always serializes to the same bytes.
 * Session turns keep the original ids.
 */

import { createHash } from 'node:crypto'

/** Ids every Chat Completions API accepts as they are. */
const ACCEPTED_ID = /^[\w-]{1,40}$/

/** 24 hex digits: 96 bits, so two different ids never meet in one conversation. */
const HASH_DIGITS = 24

/** The id to send for a tool call (or the result answering it). */
export function wireToolCallId(id: string): string {
  if (ACCEPTED_ID.test(id))
    return id
  return `call_${createHash('sha256').update(id).digest('hex').slice(0, HASH_DIGITS)}`
}
