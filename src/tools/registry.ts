import type { ToolSpec } from '../providers/types'
import type { ToolDef, ToolMap } from './types'

/**
 * The tools of one run, indexed both ways. Canonical names (`spec.name`) are
 * what sessions and hooks use; wire names (aliases) are what the model sees.
 */
export interface ToolRegistry {
  /** Specs as sent to the provider, under their wire names, in registration order. */
  readonly specs: readonly ToolSpec[]
  /** Canonical names in registration order. */
  readonly names: readonly string[]
  get: (canonical: string) => ToolDef | undefined
  /** Canonical name for a name the model used; unknown names come back unchanged. */
  toCanonical: (wireName: string) => string
  /** Wire name for a canonical name; names without an alias come back unchanged. */
  toWire: (canonical: string) => string
}

/**
 * Build a registry. Duplicate canonical names, aliases that collide with
 * another tool's name, and two tools sharing one alias are configuration
 * errors and throw at once.
 */
export function createToolRegistry(
  tools: ToolMap | undefined,
  aliases: Record<string, string> | undefined,
  /** The spec a tool shows this run (a tool may offer a different schema per run, e.g. `shell`). */
  specOf: (def: ToolDef) => ToolSpec = def => def.spec,
): ToolRegistry {
  const byName = new Map<string, ToolDef>()
  for (const def of Object.values(tools ?? {})) {
    const name = def?.spec?.name
    if (typeof name !== 'string' || name.length === 0)
      throw new TypeError('Every tool needs a spec.name')
    if (byName.has(name))
      throw new TypeError(`Two tools share the name "${name}"`)
    byName.set(name, def)
  }

  const wireOf = new Map<string, string>()
  const canonicalOf = new Map<string, string>()
  for (const [canonical, alias] of Object.entries(aliases ?? {})) {
    if (!alias || alias === canonical)
      continue
    if (byName.has(alias))
      throw new TypeError(`Alias "${alias}" for "${canonical}" collides with a tool of that name`)
    if (canonicalOf.has(alias))
      throw new TypeError(`Alias "${alias}" is used for both "${canonicalOf.get(alias)}" and "${canonical}"`)
    wireOf.set(canonical, alias)
    canonicalOf.set(alias, canonical)
  }

  const specs: ToolSpec[] = []
  for (const [name, def] of byName) {
    const wireName = wireOf.get(name)
    const spec = specOf(def)
    specs.push(wireName ? { ...spec, name: wireName } : spec)
  }

  return {
    specs,
    names: [...byName.keys()],
    get: canonical => byName.get(canonical),
    toCanonical: wireName => canonicalOf.get(wireName) ?? wireName,
    toWire: canonical => wireOf.get(canonical) ?? canonical,
  }
}
