import type { ToolResultContent } from '../core/content'
import { utf8ByteLength } from '../text/utf8-length'

function blockMarker(block: Exclude<ToolResultContent, { type: 'text' }>): string {
  const label = 'name' in block && block.name ? ` ${block.name}` : ''
  if ('ref' in block && block.ref !== undefined)
    return `[${block.type}${label}: ${block.mediaType}, ref ${block.ref}]`
  return `[${block.type}${label}: ${block.mediaType}, ${block.data?.length ?? 0} b64 bytes]`
}

/**
 * Flatten a tool output to one string for places that need text (logs, UIs).
 * Media blocks become short markers; their payload is not included.
 */
export function toolResultToText(content: string | ToolResultContent[]): string {
  if (typeof content === 'string')
    return content
  return content.map(block => block.type === 'text' ? block.text : blockMarker(block)).join('\n')
}

/**
 * Approximate request-body size of a tool output: UTF-8 bytes of text, base64
 * length of inline media. A wire-size measure, not a token count.
 */
export function toolOutputByteLength(content: string | ToolResultContent[]): number {
  if (typeof content === 'string')
    return utf8ByteLength(content)
  let total = 0
  for (const block of content) {
    if (block.type === 'text')
      total += utf8ByteLength(block.text)
    else if (block.data !== undefined)
      total += block.data.length
  }
  return total
}

/**
 * Size of a tool output as the text budget sees it: media counts as its
 * marker, so attaching a screenshot does not look like a wall of text.
 */
export function toolOutputBudgetByteLength(content: string | ToolResultContent[]): number {
  if (typeof content === 'string')
    return utf8ByteLength(content)
  let total = 0
  for (const block of content)
    total += utf8ByteLength(block.type === 'text' ? block.text : blockMarker(block))
  return total
}
