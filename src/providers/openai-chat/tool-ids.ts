/**
 * Tool-call ids on Chat Completions. OpenAI takes at most 40 characters and
 * some servers choke on anything but `[A-Za-z0-9_-]`, so other ids are
 * rewritten (see `../tool-call-ids`). Mistral's API, and Mistral chat templates
 * on self-hosted servers, take exactly nine letters and digits.
 */

import { fitAlphanumericToolCallId, fitToolCallId } from '../tool-call-ids'

/** OpenAI's limit on `tool_calls[].id` and `tool_call_id`. */
const MAX_ID_LENGTH = 40
/** Mistral's exact id length. */
const MISTRAL_ID_LENGTH = 9

/** Which ids a Chat Completions server accepts: `[A-Za-z0-9_-]{1,40}`, or Mistral's `[A-Za-z0-9]{9}`. */
export type ToolCallIdFormat = 'standard' | 'mistral'

/** The id to send for a tool call (or the result answering it) to a server taking `format`. */
export function wireToolCallId(id: string, format: ToolCallIdFormat = 'standard'): string {
  return format === 'mistral' ? fitAlphanumericToolCallId(id, MISTRAL_ID_LENGTH) : fitToolCallId(id, MAX_ID_LENGTH)
}
