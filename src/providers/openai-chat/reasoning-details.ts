/**
 * OpenRouter streams structured reasoning (`reasoning_details`) in pieces: each
 * piece names the detail it belongs to by `index`, text and summaries arrive as
 * fragments, and a signature or an encrypted blob usually arrives once, often
 * after an empty placeholder. The details are merged back into whole objects
 * so they can be replayed exactly as OpenRouter expects them.
 */

/** Fields streamed as fragments of one growing string. */
const APPENDED_FIELDS: ReadonlySet<string> = new Set(['text', 'summary'])

const NO_FRAGMENTS: readonly string[] = Object.freeze([])

export class ReasoningDetailsCollector {
  private readonly details: Record<string, unknown>[] = []
  private readonly byIndex = new Map<number, Record<string, unknown>>()

  /** Merge one delta's details. Returns the visible reasoning fragments they carried, in order. */
  push(pieces: unknown): readonly string[] {
    // Most deltas carry no details at all: they share one empty answer instead of allocating their own.
    if (!Array.isArray(pieces))
      return NO_FRAGMENTS
    const visible: string[] = []
    for (const piece of pieces) {
      if (typeof piece !== 'object' || piece === null)
        continue
      const fields = piece as Record<string, unknown>
      const target = this.detailFor(fields.index)
      for (const [key, value] of Object.entries(fields)) {
        if (APPENDED_FIELDS.has(key) && typeof value === 'string') {
          target[key] = `${typeof target[key] === 'string' ? target[key] : ''}${value}`
          if (value)
            visible.push(value)
        }
        else if (value !== null && value !== undefined && (value !== '' || !Object.hasOwn(target, key))) {
          // A later empty placeholder never erases a value that already arrived (own fields only: `'toString' in {}` holds).
          setField(target, key, value)
        }
      }
    }
    return visible
  }

  /** The merged details, in the order they first appeared. */
  finish(): unknown[] {
    return this.details
  }

  private detailFor(index: unknown): Record<string, unknown> {
    const known = typeof index === 'number' ? this.byIndex.get(index) : undefined
    if (known)
      return known
    const detail: Record<string, unknown> = {}
    this.details.push(detail)
    if (typeof index === 'number')
      this.byIndex.set(index, detail)
    return detail
  }
}

/**
 * Set one field of a detail as `JSON.parse` does: an own property, even for
 * `__proto__`. Assigned, a streamed `__proto__` would replace the detail's
 * prototype: the field was lost, and what it held (`text`, `signature`) was
 * read back by later merges as if it had arrived, and replayed.
 */
function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  else
    target[key] = value
}
