/** A snapshot date at the end of an id: `-20250929` (Anthropic) or `-2024-08-06` (OpenAI). */
const DATED_SUFFIX = /-20\d{6}$|-20\d{2}-\d{2}-\d{2}$/

/**
 * An OpenRouter routing variant (`vendor/model:nitro`). `:free` is left alone:
 * it names a separately priced model, and dropping it would bill the paid one.
 */
const ROUTING_VARIANT = /^([^/:]+\/[^:]+):([a-z][a-z-]*)$/

/** The id without its snapshot date, or `undefined` when it carries none. */
export function undatedModelId(modelId: string): string | undefined {
  const undated = modelId.replace(DATED_SUFFIX, '')
  return undated !== modelId && undated.length > 0 ? undated : undefined
}

/**
 * The ids to try for a requested model, most specific first: the id itself,
 * then without its snapshot date, then without an OpenRouter routing variant.
 * Shorter family names are never tried (`claude-opus-4-6` never falls back to
 * `claude-opus-4`), so an unknown model stays unknown instead of borrowing a price.
 */
export function modelIdCandidates(modelId: string): string[] {
  const candidates = [modelId]
  addCandidate(candidates, undatedModelId(modelId))
  const variant = ROUTING_VARIANT.exec(modelId)
  if (variant && variant[2] !== 'free') {
    addCandidate(candidates, variant[1])
    addCandidate(candidates, undatedModelId(variant[1]))
  }
  return candidates
}

/** A module function rather than a closure: costs are estimated on every turn. */
function addCandidate(candidates: string[], id: string | undefined): void {
  if (id !== undefined && !candidates.includes(id))
    candidates.push(id)
}
