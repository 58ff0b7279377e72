/**
 * Media knobs: how images and documents ride the requests of a long run.
 * Ageing (`mediaKeepTurns`, `mediaBudget`) changes only what is sent;
 * `maxImageEdge` shrinks PNGs once, as they enter the session.
 */

import { defineFields, defineKnobs, shape, wholeAtLeast } from './define'

/**
 * Limits on the inline media one request carries. Past either, the oldest
 * media leave the request as `attachment://` markers, in steps of half the
 * limit crossed. A field left unset is no limit of its own.
 */
export interface MediaBudget {
  /** Most inline images and documents per request (lowered to the provider's own limit when that is smaller). */
  maxItems?: number
  /** Most base64 bytes of inline media per request. */
  maxBytes?: number
}

/** The media slice. */
export interface MediaKnobs {
  /**
   * Media (top-level images and documents, and those nested in tool results)
   * older than the last `mediaKeepTurns` messages leave the request as a short
   * `attachment://` marker; the session keeps the bytes. The frontier moves in
   * chunks of 8 messages, so the request prefix changes once per chunk. `0`
   * ages out all media. Wins over `mediaBudget`. Default off.
   */
  mediaKeepTurns?: number
  /** Keep media inline until the request nears these limits, then age out the oldest in steps of half a limit. Default off. */
  mediaBudget?: MediaBudget
  /** Inline PNGs whose longest edge is larger are downscaled once, as they enter the session (tool results and prompt images). Default off. */
  maxImageEdge?: number
}

const BUDGET_FIELDS = defineFields<MediaBudget>('mediaBudget', {}, {
  maxItems: { doc: 'Most inline images and documents per request; the provider\'s `maxMediaPerRequest` lowers it.', defaultLabel: 'no limit', check: wholeAtLeast(1) },
  maxBytes: { doc: 'Most base64 bytes of inline media per request.', defaultLabel: 'no limit', check: wholeAtLeast(1) },
})

/** The media slice: every knob is off until set. */
export const MEDIA_KNOBS = defineKnobs<MediaKnobs, Record<never, never>>('media', {}, {
  mediaKeepTurns: { doc: 'Media older than the last N messages leave the request as `attachment://` markers, in chunks of 8 messages.', defaultLabel: 'off', check: wholeAtLeast(0) },
  mediaBudget: { doc: 'Media stay inline until a request nears these limits; then the oldest leave it, half a limit at a time.', defaultLabel: 'off', check: shape(BUDGET_FIELDS), fields: BUDGET_FIELDS },
  maxImageEdge: { doc: 'Inline PNGs with a longer edge are downscaled once, when they enter the session.', defaultLabel: 'off', check: wholeAtLeast(1) },
})

/**
 * Knobs a run's behavior overrides as one: a run that sets either drops the
 * agent's value of the other, so a run's budget is not shadowed by an
 * agent-wide window (and the other way round).
 */
export const MEDIA_AGEING_KNOBS = Object.freeze(['mediaKeepTurns', 'mediaBudget'] as const)
