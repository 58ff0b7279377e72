import type { SessionContentBlock, SessionMessage } from '../core/content'
import type { CompletionResult } from './policy'
import { CompactionRefusedError } from '../errors'
import { toolOutputByteLength } from '../session/tool-output'

/** Most tokens a compaction summary call may write, whatever the window. */
export const SUMMARY_MAX_OUTPUT_TOKENS = 8192
/** Share of the context window a compaction summary call may write. */
export const SUMMARY_WINDOW_FRACTION = 0.1
/** Bytes counted as one token when text is sized without a tokenizer. */
const BYTES_PER_TOKEN = 4

/**
 * Output ceiling of a compaction summary call: a tenth of the context
 * window, at most 8192 tokens (8192 when the window is unknown). A summary
 * that fits it leaves the window nine tenths free for the kept tail, so the
 * requests after a compaction cannot overflow because of the summary.
 */
export function summaryOutputCeiling(contextWindow: number | undefined): number {
  if (contextWindow === undefined || !(contextWindow > 0))
    return SUMMARY_MAX_OUTPUT_TOKENS
  return Math.max(1, Math.min(SUMMARY_MAX_OUTPUT_TOKENS, Math.floor(contextWindow * SUMMARY_WINDOW_FRACTION)))
}

/** Tokens of `bytes` of text, rounded up, at 4 bytes a token. */
export function tokensOfBytes(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN)
}

/** UTF-8 bytes of a string, counted without encoding it (a lone surrogate is sent as U+FFFD: 3 bytes). */
export function utf8Bytes(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) {
      bytes += 1
    }
    else if (code < 0x800) {
      bytes += 2
    }
    else if (code >= 0xD800 && code <= 0xDBFF && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4
      i++
    }
    else {
      bytes += 3
    }
  }
  return bytes
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xDC00 && code <= 0xDFFF
}

/**
 * Rough request-body size of messages, in bytes: text, thinking and tool
 * output as UTF-8, inline media as its base64 length, tool inputs as JSON.
 * An input too deep to serialize counts as unbounded: whatever replaces it
 * is smaller.
 */
export function messagesBytes(messages: readonly SessionMessage[]): number {
  let total = 0
  for (const message of messages) {
    for (const block of message.content)
      total += blockBytes(block)
  }
  return total
}

function blockBytes(block: SessionContentBlock): number {
  switch (block.type) {
    case 'text':
    case 'thinking':
      return utf8Bytes(block.text)
    case 'tool_result':
      return toolOutputByteLength(block.output)
    case 'compact-summary':
      return utf8Bytes(block.summary)
    case 'tool_call':
      return utf8Bytes(block.name) + jsonBytes(block.input)
    default:
      return jsonBytes(block)
  }
}

function jsonBytes(value: unknown): number {
  try {
    return utf8Bytes(JSON.stringify(value) ?? '')
  }
  catch {
    return Number.POSITIVE_INFINITY
  }
}

/**
 * Why a summary must not replace the turns, if it must not: the call stopped
 * at its output ceiling (`cut-off`: the summary ends mid-thought), it said
 * nothing (`empty`), or its text is larger than the ceiling or no smaller
 * than the messages it would replace (`oversized`: a provider that ignores
 * the ceiling, or a summary of turns already short). Keeping such a summary
 * would make every later request larger, not smaller.
 */
export function summaryRefusal(answer: CompletionResult, ceilingTokens: number, replacedBytes: number): CompactionRefusedError | undefined {
  const text = answer.text.trim()
  const bytes = utf8Bytes(text)
  const tokens = tokensOfBytes(bytes)
  if (answer.usage.finishReason === 'length')
    return new CompactionRefusedError('cut-off', ceilingTokens, tokens)
  if (text === '')
    return new CompactionRefusedError('empty', ceilingTokens, 0)
  if (tokens > ceilingTokens || bytes >= replacedBytes)
    return new CompactionRefusedError('oversized', ceilingTokens, tokens)
  return undefined
}
