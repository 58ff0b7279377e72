import type { SessionTurn, ToolResultContent } from '../core/content'
import { attachmentHandle } from '../wire/stages/media-ageing'

/** The scheme of the handles media ageing leaves in a request. */
export const ATTACHMENT_SCHEME = 'attachment://'

type Media = Extract<ToolResultContent, { type: 'image' | 'document' }>

function isMedia(block: { type: string }): block is Media {
  return block.type === 'image' || block.type === 'document'
}

/**
 * The media a handle names, looked up in the recorded turns (which keep every
 * byte): a tool result's part by call id and index, or a top-level block by
 * the fingerprint of its payload. `undefined` when no such media is recorded.
 */
export function findAttachment(turns: readonly SessionTurn[], handle: string): Media | undefined {
  const rest = handle.slice(ATTACHMENT_SCHEME.length)
  const slash = rest.lastIndexOf('/')
  if (!rest.startsWith('media-') && slash > 0) {
    const callId = rest.slice(0, slash)
    const part = Number(rest.slice(slash + 1))
    for (const turn of turns) {
      for (const block of turn.content) {
        if (block.type === 'tool_result' && block.callId === callId && Array.isArray(block.output)) {
          const found = block.output[part]
          if (found && isMedia(found))
            return found
        }
      }
    }
    return undefined
  }
  for (const turn of turns) {
    for (const block of turn.content) {
      if (isMedia(block) && attachmentHandle(block) === handle)
        return block as Media
    }
  }
  return undefined
}
