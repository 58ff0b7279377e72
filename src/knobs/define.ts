/**
 * The one way a knob slice is written: its keys' defaults, a validator and a
 * one-line doc per key, next to the TypeScript interface that declares them.
 * `AgentBehavior` is composed from the slices' interfaces; the reference page
 * and the per-knob scenario tests are checked against what the slices declare.
 */

/** What a validator found wrong: where below the knob (`''` for the knob itself, else `.field`) and what it expected. */
export interface KnobProblem {
  readonly path: string
  readonly expected: string
}

/** Checks one set value (an unset knob is always valid and never reaches a check). */
export type KnobCheck = (value: unknown) => KnobProblem | undefined

/** How one knob is declared in its slice. */
export interface KnobSpec {
  /** One line for the reference page. */
  readonly doc: string
  /** How the reference page names a default that is not one value (`'off'`, `'unlimited'`, `'model-driven'`). */
  readonly defaultLabel?: string
  readonly check: KnobCheck
  /** Fields of an object knob, declared the same way; `check` should be `shape(fields)` so they are validated too. */
  readonly fields?: KnobFields<object>
}

/** A declared knob as the metadata exposes it: its spec plus its default, when it has one. */
export interface KnobMeta extends KnobSpec {
  readonly name: string
  /** The value an unset knob behaves as. Absent: unset means off, or the default is computed (see `defaultLabel`). */
  readonly default?: unknown
}

/** The specs of every key of `K`, so a key cannot be declared without its doc and validator. */
export type KnobTable<K> = { readonly [P in keyof K]-?: KnobSpec }

/** The fields of an object knob: their defaults and specs. */
export interface KnobFields<K> {
  readonly defaults: Readonly<Partial<K>>
  readonly knobs: Readonly<Record<string, KnobMeta>>
}

/** One family's knobs: the slice's name, its defaults (each written once, here) and the metadata of each key. */
export interface KnobSlice<K, D extends Partial<K> = Partial<K>> {
  readonly name: string
  readonly defaults: Readonly<D>
  readonly knobs: Readonly<Record<keyof K & string, KnobMeta>>
}

function metaOf(table: Record<string, KnobSpec>, defaults: Record<string, unknown>, owner: string): Record<string, KnobMeta> {
  const knobs: Record<string, KnobMeta> = {}
  for (const [name, spec] of Object.entries(table)) {
    const meta: KnobMeta = name in defaults ? { name, ...spec, default: defaults[name] } : { name, ...spec }
    // A default its own validator rejects is a bug in the slice; fail when the module loads, not in a run.
    if (meta.default !== undefined && spec.check(meta.default))
      throw new TypeError(`Knob ${owner}${name}: its default does not pass its own check`)
    knobs[name] = Object.freeze(meta)
  }
  for (const name of Object.keys(defaults)) {
    if (!(name in table))
      throw new TypeError(`Knob ${owner}${name} has a default but no spec`)
  }
  return knobs
}

/**
 * Declare a knob slice. `defaults` holds the value of every key that has one
 * (readers import it from here instead of writing the number again); `table`
 * holds the doc and validator of every key of `K`.
 */
export function defineKnobs<K, D extends Partial<K>>(name: string, defaults: D, table: KnobTable<K>): KnobSlice<K, D> {
  const knobs = metaOf(table as Record<string, KnobSpec>, defaults as Record<string, unknown>, '')
  return Object.freeze({ name, defaults: Object.freeze(defaults), knobs: Object.freeze(knobs) as KnobSlice<K, D>['knobs'] })
}

/** Declare the fields of an object knob (such as `retry`), with their own defaults, docs and validators. */
export function defineFields<K>(owner: string, defaults: Readonly<Partial<K>>, table: KnobTable<K>): KnobFields<K> {
  return Object.freeze({ defaults: Object.freeze(defaults), knobs: Object.freeze(metaOf(table as Record<string, KnobSpec>, defaults as Record<string, unknown>, `${owner}.`)) })
}

// --- validators ----------------------------------------------------------------

function problem(expected: string): KnobProblem {
  return { path: '', expected }
}

/** `true` or `false`. */
export const isBoolean: KnobCheck = value => typeof value === 'boolean' ? undefined : problem('a boolean')

/** Any string. */
export const isString: KnobCheck = value => typeof value === 'string' ? undefined : problem('a string')

/** A function. */
export const isFunction: KnobCheck = value => typeof value === 'function' ? undefined : problem('a function')

/**
 * A number where `0`, negatives and `NaN` mean off (the documented form of
 * most limits and watchdogs), so only the type is checked.
 */
export const isLimit: KnobCheck = value => typeof value === 'number' ? undefined : problem('a number (0 or less turns it off)')

/** A finite number at least `min`. */
export function atLeast(min: number): KnobCheck {
  return value => typeof value === 'number' && Number.isFinite(value) && value >= min ? undefined : problem(`a finite number >= ${min}`)
}

/** A finite number above zero. */
export const isPositive: KnobCheck = value => typeof value === 'number' && Number.isFinite(value) && value > 0 ? undefined : problem('a finite number > 0')

/** A whole number at least `min` (`Infinity` too when `unbounded`). */
export function wholeAtLeast(min: number, unbounded = false): KnobCheck {
  const expected = `a whole number >= ${min}${unbounded ? ' (or Infinity)' : ''}`
  return value => typeof value === 'number' && (Number.isInteger(value) || (unbounded && value === Number.POSITIVE_INFINITY)) && value >= min
    ? undefined
    : problem(expected)
}

/** One of the listed values. */
export function oneOf(...values: readonly unknown[]): KnobCheck {
  const expected = values.map(value => typeof value === 'string' ? `'${value}'` : String(value)).join(' or ')
  return value => values.includes(value) ? undefined : problem(expected)
}

/** A plain object (not `null`, not an array); its keys are the host's. */
export const isRecord: KnobCheck = value => typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : problem('an object')

/** An array of strings. */
export const isStringList: KnobCheck = value => Array.isArray(value) && value.every(entry => typeof entry === 'string') ? undefined : problem('an array of strings')

/** Passes when any of the checks passes; the problem names every accepted form. */
export function either(...checks: readonly KnobCheck[]): KnobCheck {
  return (value) => {
    const problems: KnobProblem[] = []
    for (const check of checks) {
      const found = check(value)
      if (!found)
        return undefined
      problems.push(found)
    }
    // A nested problem (a bad field of an accepted object form) is more useful than the list of forms.
    const nested = problems.find(p => p.path !== '')
    return nested ?? problem(problems.map(p => p.expected).join(', or '))
  }
}

/** An object whose declared fields pass their checks; unknown fields are left alone, like unknown knobs. */
export function shape(fields: KnobFields<object>): KnobCheck {
  return (value) => {
    const base = isRecord(value)
    if (base)
      return base
    const raw = value as Record<string, unknown>
    for (const [name, meta] of Object.entries(fields.knobs)) {
      if (raw[name] === undefined)
        continue
      const found = meta.check(raw[name])
      if (found)
        return { path: `.${name}${found.path}`, expected: found.expected }
    }
    return undefined
  }
}
