/**
 * How an OpenAI reasoning item survives in a session. With `store: false`
 * the server keeps nothing, so everything the next request must send back
 * lives in the `thinking` block's `signature` (producer `'openai'`): the
 * item id, the encrypted reasoning, and which output item came right after
 * it. The API rejects a reasoning item that is not directly followed by the
 * item it preceded, so the follower is recorded here and checked on replay.
 */

/** The output item that directly followed a reasoning item. */
export type ReasoningFollower
  = | { type: 'function_call', callId: string }
    | { type: 'message' }

export interface ReasoningSignature {
  /** The item id (`rs_…`). */
  id: string
  encryptedContent: string
  /** Absent when nothing replayable followed (the turn ended inside the reasoning). */
  next?: ReasoningFollower
}

export const OPENAI_SIGNATURE_PRODUCER = 'openai'

/** Bumped when the encoding changes; signatures of an unknown version are not replayed. */
const SIGNATURE_VERSION = 1

/** Fixed key order, so the same signature always encodes to the same string. */
export function encodeReasoningSignature(signature: ReasoningSignature): string {
  const next = signature.next === undefined
    ? undefined
    : signature.next.type === 'function_call'
      ? { type: 'function_call', call_id: signature.next.callId }
      : { type: 'message' }
  return JSON.stringify({ v: SIGNATURE_VERSION, id: signature.id, encrypted_content: signature.encryptedContent, next })
}

/** The signature's parts, or `undefined` when it is not one this module wrote. */
export function decodeReasoningSignature(signature: string | undefined): ReasoningSignature | undefined {
  if (!signature)
    return undefined
  let value: unknown
  try {
    value = JSON.parse(signature)
  }
  catch {
    return undefined
  }
  if (!isRecord(value) || value.v !== SIGNATURE_VERSION)
    return undefined
  const { id, encrypted_content: encryptedContent, next } = value
  if (typeof id !== 'string' || !id || typeof encryptedContent !== 'string' || !encryptedContent)
    return undefined
  return { id, encryptedContent, next: decodeFollower(next) }
}

function decodeFollower(value: unknown): ReasoningFollower | undefined {
  if (!isRecord(value))
    return undefined
  if (value.type === 'message')
    return { type: 'message' }
  if (value.type === 'function_call' && typeof value.call_id === 'string')
    return { type: 'function_call', callId: value.call_id }
  return undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
