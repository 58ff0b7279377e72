import type { SessionTurn, ToolResultContent } from '../core/content'
import { ATTACHMENT_SCHEME, attachmentHandle, HANDLE_DIGEST_HEX } from '../wire/stages/media-marker'

export { ATTACHMENT_SCHEME }

type Media = Extract<ToolResultContent, { type: 'image' | 'document' }>

function isMedia(block: { type: string }): block is Media {
  return block.type === 'image' || block.type === 'document'
}

const HANDLE = new RegExp(`^attachment://media-[0-9a-f]{${HANDLE_DIGEST_HEX}}$`)

/** Whether a string has the shape of a handle a marker names (`attachment://media-<digest>`). */
export function isAttachmentHandle(handle: string): boolean {
  return HANDLE.test(handle)
}

/**
 * The media a handle names, looked up in the recorded turns (which keep every
 * byte): the top-level block or tool-result part whose whole payload has the
 * handle's digest. `undefined` when no such media is recorded, or when the
 * string is not a handle.
 */
export function findAttachment(turns: readonly SessionTurn[], handle: string): Media | undefined {
  if (!isAttachmentHandle(handle))
    return undefined
  for (const turn of turns) {
    for (const block of turn.content) {
      if (isMedia(block) && attachmentHandle(block) === handle)
        return block as Media
      if (block.type === 'tool_result' && Array.isArray(block.output)) {
        for (const part of block.output) {
          if (isMedia(part) && attachmentHandle(part) === handle)
            return part
        }
      }
    }
  }
  return undefined
}
