import type { ToolSpec } from '../providers/types'
import type { ToolDef, ToolMap } from './types'
import { withGetters } from '../core/fast-accessors'
import { mergeObjects } from '../core/merge-objects'
import { fitToolCallId } from '../providers/tool-call-ids'
import { schemaRefProblem } from '../schema/refs'

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
  /**
   * Wire name for a canonical name: a tool's alias, else its name; the name
   * of a call to no tool of the run, when no API would take it back, made
   * into one that does (`replayableToolName`).
   */
  toWire: (canonical: string) => string
  /**
   * Why the model may not call this tool yet (a lazily disclosed tool it has
   * not loaded), or `undefined` when it may.
   */
  refusal: (canonical: string) => string | undefined
}

/**
 * Lazy disclosure: tools held out of the tools array until the model loads
 * them. `unlocked` is read live, so additions (by `tool_search`) take effect
 * at the next call and, with `appendUnlocked`, at the next request.
 */
export interface ToolDisclosure {
  /** Canonical names that start undisclosed. */
  deferred: ReadonlySet<string>
  /** Canonical names disclosed so far, in discovery order. */
  unlocked: ReadonlySet<string>
  /** Append disclosed tools' schemas after the eager ones (`'unlock'` mode). */
  appendUnlocked: boolean
  /** Message for a call of a tool that is not disclosed yet. */
  refusal: (wireName: string) => string
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
  disclosure?: ToolDisclosure,
): ToolRegistry {
  const byName = new Map<string, ToolDef>()
  for (const def of Object.values(tools ?? {})) {
    const name = def?.spec?.name
    if (typeof name !== 'string' || name.length === 0)
      throw new TypeError('Every tool needs a spec.name')
    if (byName.has(name))
      throw new TypeError(`Two tools share the name "${name}"`)
    checkRawSchema(def)
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

  const wireSpec = (name: string, def: ToolDef): ToolSpec => {
    const wireName = wireOf.get(name)
    const spec = specOf(def)
    return wireName ? mergeObjects(spec, { name: wireName }) : spec
  }
  const eager: ToolSpec[] = []
  for (const [name, def] of byName) {
    if (!disclosure?.deferred.has(name))
      eager.push(wireSpec(name, def))
  }

  // The set only grows, so its size tells whether the appended tail changed;
  // otherwise the same array (and the same bytes) goes out every turn.
  let specs = eager
  let appendedCount = 0
  const currentSpecs = (): readonly ToolSpec[] => {
    if (!disclosure?.appendUnlocked || disclosure.unlocked.size === appendedCount)
      return specs
    appendedCount = disclosure.unlocked.size
    const tail: ToolSpec[] = []
    for (const name of disclosure.unlocked) {
      const def = byName.get(name)
      if (def && disclosure.deferred.has(name))
        tail.push(wireSpec(name, def))
    }
    specs = [...eager, ...tail]
    return specs
  }

  const toWire = (canonical: string) => wireOf.get(canonical) ?? (byName.has(canonical) ? canonical : replayableToolName(canonical))
  return withGetters<ToolRegistry, 'specs'>({
    names: [...byName.keys()],
    get: canonical => byName.get(canonical),
    toCanonical: wireName => canonicalOf.get(wireName) ?? wireName,
    toWire,
    refusal: canonical => disclosure?.deferred.has(canonical) && !disclosure.unlocked.has(canonical)
      ? disclosure.refusal(toWire(canonical))
      : undefined,
  }, { specs: currentSpecs })
}

/** Tools whose raw schema was found checkable (each def is walked once, however many runs use it). */
const checkedSchemas = new WeakSet<ToolDef>()

/**
 * A host tool without its own `validate` is checked by zidane's JSON Schema
 * checker, which resolves only local `$ref`s: a schema it could not check is
 * refused here rather than let through unchecked. MCP tools are the server's
 * to check, so theirs are not refused.
 */
function checkRawSchema(def: ToolDef): void {
  if (def.validate || def.mcp || !def.spec.inputSchema || checkedSchemas.has(def))
    return
  const problem = schemaRefProblem(def.spec.inputSchema)
  if (problem)
    throw new TypeError(`Tool "${def.spec.name}": its inputSchema cannot be checked: ${problem}`)
  checkedSchemas.add(def)
}

/** The longest tool name every tool-calling API takes (OpenAI's 64, the strictest). */
const MAX_REPLAYED_NAME_CHARS = 64

/** What every tool-calling API takes as the name of a call sent back to it: `[A-Za-z0-9_-]`, 1 to 64 characters. */
const REPLAYABLE_NAME = /^[\w-]{1,64}$/

/**
 * The name a call to no tool of the run is sent back under. Models invent
 * names (`multi_tool_use.parallel`, `functions.search`, a name with a space),
 * and the loop answers such a call with an error result; but the call stays
 * in the conversation, and the OpenAI APIs refuse every later request that
 * carries a name outside their pattern with a 400 that no retry cures: the
 * session could not go on. Such a name goes out as its readable part and a
 * hash of the whole (as call ids do), the same every time, so the request
 * stays byte-stable; the session keeps the name as the model wrote it.
 */
export function replayableToolName(name: string): string {
  return REPLAYABLE_NAME.test(name) ? name : fitToolCallId(name, MAX_REPLAYED_NAME_CHARS)
}
