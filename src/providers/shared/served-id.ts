/**
 * Names a provider's answer gives itself: the model that served it, the
 * response's id. They come from the server (or a proxy in front of it) and
 * go into the turn's usage, the stats, the session and telemetry on every
 * turn, and code past the provider treats them as strings. A served model
 * given as a number used to fail the turn (`modelId.replace is not a
 * function`), and one of megabytes was stored with every turn. A value is
 * taken only as a string of 1 to `MAX_SERVED_ID_CHARS` characters; anything
 * else is ignored, and the requested model (or no id) stands.
 */

/** The longest served model name or response id taken from an answer. */
export const MAX_SERVED_ID_CHARS = 256

/** `value` when it is a string of 1 to `MAX_SERVED_ID_CHARS` characters, else `undefined`. */
export function servedId(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_SERVED_ID_CHARS ? value : undefined
}
