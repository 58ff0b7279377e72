import type { SessionMessage } from '../core/content'
import { mergeObjects } from '../core/merge-objects'
import { sameItems } from './messages'

/** A wire view a hook may edit in place, and the way back to the original objects. */
export interface DetachedView {
  /** Fresh message objects with fresh content arrays (the blocks are shared). */
  messages: SessionMessage[]
  /**
   * The view after the hook: each message it left as it was is swapped back
   * for the original object, so caches keyed by identity (the pairing
   * checkpoint, wire builders) still recognize it.
   */
  restore: (edited: SessionMessage[]) => SessionMessage[]
}

/**
 * Copy the wire view for `context:transform`. The view's messages hold the
 * recorded turns' own content arrays, so a hook that pushed a block into one
 * (say a `tool_result` next to the prompt text) would have changed the
 * session; on the copy it changes this request only, where the pairing pass
 * then sees it. Blocks are not copied: hooks replace blocks, they do not edit
 * them.
 */
export function detachView(messages: readonly SessionMessage[]): DetachedView {
  const originals = new Map<SessionMessage, SessionMessage>()
  const copies = messages.map((message) => {
    const copy = mergeObjects(message, { content: [...message.content] })
    originals.set(copy, message)
    return copy
  })
  return {
    messages: copies,
    restore: edited => edited.map((message) => {
      const original = originals.get(message)
      return original && original.role === message.role && sameItems(original.content, message.content) ? original : message
    }),
  }
}
