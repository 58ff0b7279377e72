import { STREAM_OPTION_DEFAULTS } from './stream-defaults'
/**
 * The prompt-cache breakpoint marker shared by the Messages API and the Chat
 * Completions servers that take `cache_control` (OpenRouter to Anthropic and
 * Gemini models). Where each builder places it depends on its wire shape;
 * the marker itself, and when there is one, is decided here.
 */

/** An ephemeral breakpoint; `ttl` is sent only for the one-hour cache. */
export interface EphemeralCacheControl {
  type: 'ephemeral'
  ttl?: '1h'
}

/**
 * The marker every breakpoint of one request carries, or `undefined` when the
 * run turned caching off. One TTL for every breakpoint: the API wants 1h
 * entries before 5m ones, and a uniform TTL never mixes them.
 */
export function cacheControlFor(input: { cache?: boolean, cacheTtl?: '5m' | '1h' }): EphemeralCacheControl | undefined {
  if (!(input.cache ?? STREAM_OPTION_DEFAULTS.cache))
    return undefined
  return (input.cacheTtl ?? STREAM_OPTION_DEFAULTS.cacheTtl) === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' }
}
