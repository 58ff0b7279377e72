/**
 * A message's wire form, remembered from one request to the next. A run
 * sends its whole conversation on every turn, and the turns already recorded
 * never change (hooks that rewrite a request assign new arrays), so without
 * this every earlier message would be converted again on every turn, and
 * its JSON, remembered by the wire objects (`./body-json.ts`), written again.
 *
 * An entry is keyed by the message's content array, so it lives as long as
 * the turn it was built from. It holds everything the conversion read (the
 * role, the blocks, the blocks of the calls a user message's results answer,
 * and the builder's own settings) and is reused only when all of it is the
 * same again; a content array changed in place is converted afresh.
 */

import type { SessionContentBlock, SessionMessage } from '../../core/content'
import { sameItems } from '../../wire/messages'

interface Entry<Settings, Wire> {
  role: SessionMessage['role']
  /** The blocks when converted (a copy). */
  blocks: readonly SessionContentBlock[]
  answering: readonly SessionContentBlock[] | undefined
  settings: Settings
  wire: Wire
}

export class WireFormMemo<Settings, Wire> {
  private readonly entries = new WeakMap<readonly SessionContentBlock[], Entry<Settings, Wire>>()

  /** `sameSettings` says whether a form built with `kept` holds for a request built with `now`. */
  constructor(private readonly sameSettings: (kept: Settings, now: Settings) => boolean) {}

  /** The form remembered for `message`, or `undefined` when anything it was built from differs. */
  get(message: SessionMessage, answering: readonly SessionContentBlock[] | undefined, settings: Settings): Wire | undefined {
    const kept = this.entries.get(message.content)
    if (kept
      && kept.role === message.role
      && this.sameSettings(kept.settings, settings)
      && sameBlocks(kept.blocks, message.content)
      && sameBlocks(kept.answering, answering)) {
      return kept.wire
    }
    return undefined
  }

  /** Remember `wire` as `message`'s form. A form carrying media should not be kept: it would hold a second copy of the data for the turn's life. */
  set(message: SessionMessage, answering: readonly SessionContentBlock[] | undefined, settings: Settings, wire: Wire): void {
    this.entries.set(message.content, {
      role: message.role,
      blocks: [...message.content],
      answering: answering && [...answering],
      settings,
      wire,
    })
  }
}

function sameBlocks(a: readonly SessionContentBlock[] | undefined, b: readonly SessionContentBlock[] | undefined): boolean {
  return a === undefined || b === undefined ? a === b : sameItems(a, b)
}
