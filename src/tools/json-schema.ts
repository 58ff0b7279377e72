/**
 * A small JSON Schema checker for tool inputs that come without their own
 * `validate` (raw-schema tools, MCP tools, a JSON-Schema `behavior.schema`).
 * It covers what tool schemas use in practice (types, required, properties,
 * patternProperties, additionalProperties, enum, const, items, string and
 * number bounds, allOf/anyOf/oneOf, local `$ref`) and reports every problem
 * with its path, so the model can fix all of them in one retry. Unknown
 * keywords are ignored.
 *
 * The value comes from a model and the schema may come from an MCP server, so
 * every lookup is an own-property lookup: a key named `constructor` or
 * `__proto__` is an ordinary key, never something inherited from
 * `Object.prototype`.
 */

import { resolveLocalRef } from '../schema/refs'
import { listOptions } from '../text/problem-list'

type Schema = Record<string, unknown>

interface Walk {
  /** The schema `$ref`s resolve against. */
  readonly root: Schema
  readonly problems: string[]
}

/** No `$ref` followed yet: shared, since a set of followed references is never edited (a new one is made per reference). */
const NO_REFS: ReadonlySet<string> = new Set()

/**
 * Each pattern compiled once, not on every call that checks it. Sharing is
 * safe: the patterns have no `g` or `y` flag, so `test` keeps no state.
 */
const compiledPatterns = new Map<string, RegExp | undefined>()
const MAX_COMPILED_PATTERNS = 512

/** Check a value against the JSON Schema subset tools use; each problem comes back as one readable line. */
export function checkJsonSchema(schema: Schema, value: unknown): string[] {
  const walk: Walk = { root: schema, problems: [] }
  visit(walk, schema, value, '', NO_REFS)
  // Two subschemas applied to one value (`allOf` and a `$ref`) may find the same fault.
  return walk.problems.length < 2 ? walk.problems : [...new Set(walk.problems)]
}

/**
 * `followed` holds the `$ref`s already followed for this value: a schema that
 * refers back to itself without descending into the value would loop forever
 * (`createAgent` refuses such a schema; an MCP server's may still have one),
 * so a reference met twice on one value is not followed again.
 */
function visit(walk: Walk, schema: Schema, value: unknown, path: string, followed: ReadonlySet<string>): void {
  const { problems } = walk
  const at = path || '(input)'

  const ref = own(schema, '$ref')
  if (typeof ref === 'string' && !followed.has(ref)) {
    const target = resolveLocalRef(walk.root, ref)
    // A reference that leads outside the schema is left unchecked: a host's
    // schema cannot have one (createAgent refuses it), and an MCP server
    // checks its own input against the documents it refers to.
    if (target !== undefined)
      apply(walk, target, value, path, new Set([...followed, ref]))
  }

  if (Object.hasOwn(schema, 'const') && !deepEqual(schema.const, value)) {
    problems.push(`${at}: must be ${JSON.stringify(schema.const)}`)
    return
  }
  const options = own(schema, 'enum')
  if (Array.isArray(options) && !options.some(option => deepEqual(option, value))) {
    problems.push(`${at}: must be one of ${listOptions(options)}`)
    return
  }
  const all = own(schema, 'allOf')
  if (Array.isArray(all)) {
    for (const part of all)
      apply(walk, part, value, path, followed)
  }
  const alternatives = own(schema, 'anyOf') ?? own(schema, 'oneOf')
  if (Array.isArray(alternatives) && !alternatives.some(option => matches(walk, option, value, followed))) {
    problems.push(`${at}: does not match any allowed shape`)
    return
  }
  const type = own(schema, 'type')
  if (type !== undefined && !matchesType(type, value)) {
    problems.push(`${at}: expected ${describeType(type)}, got ${typeName(value)}`)
    return
  }

  if (typeof value === 'string')
    checkString(schema, value, at, problems)
  else if (typeof value === 'number')
    checkNumber(schema, value, at, problems)
  else if (Array.isArray(value))
    checkArray(walk, schema, value, path)
  else if (isPlainObject(value))
    checkObject(walk, schema, value, path)
}

/** A subschema, which JSON Schema also lets be `true` (anything) or `false` (nothing). */
function apply(walk: Walk, schema: unknown, value: unknown, path: string, followed: ReadonlySet<string>): void {
  if (schema === false)
    walk.problems.push(`${path || '(input)'}: is not allowed here`)
  else if (isPlainObject(schema))
    visit(walk, schema, value, path, followed)
}

function matches(walk: Walk, schema: unknown, value: unknown, followed: ReadonlySet<string>): boolean {
  const trial: Walk = { root: walk.root, problems: [] }
  apply(trial, schema, value, '', followed)
  return trial.problems.length === 0
}

function checkString(schema: Schema, value: string, at: string, problems: string[]): void {
  const minLength = own(schema, 'minLength')
  const maxLength = own(schema, 'maxLength')
  if (typeof minLength === 'number' || typeof maxLength === 'number') {
    // JSON Schema counts characters (code points), not UTF-16 units.
    const length = codePointLength(value)
    if (typeof minLength === 'number' && length < minLength)
      problems.push(`${at}: must have at least ${minLength} characters`)
    if (typeof maxLength === 'number' && length > maxLength)
      problems.push(`${at}: must have at most ${maxLength} characters`)
  }
  const source = own(schema, 'pattern')
  if (typeof source === 'string') {
    const pattern = compilePattern(source)
    if (pattern && !pattern.test(value))
      problems.push(`${at}: must match /${source}/`)
  }
}

function codePointLength(value: string): number {
  let length = 0
  for (const _ of value)
    length++
  return length
}

/**
 * Unicode mode first; many real schemas use escapes (`\:`, `\@`) that only
 * the legacy mode accepts. A pattern neither mode compiles is ignored like an
 * unknown keyword rather than failing the tool call.
 */
function compilePattern(source: string): RegExp | undefined {
  const known = compiledPatterns.get(source)
  if (known !== undefined || compiledPatterns.has(source))
    return known
  let pattern: RegExp | undefined
  for (const flags of ['u', '']) {
    try {
      pattern = new RegExp(source, flags)
      break
    }
    catch {}
  }
  // Patterns come from tool schemas, a fixed set per agent; the cap only stops a server that sends new ones forever.
  if (compiledPatterns.size >= MAX_COMPILED_PATTERNS)
    compiledPatterns.clear()
  compiledPatterns.set(source, pattern)
  return pattern
}

function checkNumber(schema: Schema, value: number, at: string, problems: string[]): void {
  const bound = (name: string): number | undefined => {
    const found = own(schema, name)
    return typeof found === 'number' ? found : undefined
  }
  const minimum = bound('minimum')
  const maximum = bound('maximum')
  const exclusiveMinimum = bound('exclusiveMinimum')
  const exclusiveMaximum = bound('exclusiveMaximum')
  if (minimum !== undefined && value < minimum)
    problems.push(`${at}: must be >= ${minimum}`)
  if (maximum !== undefined && value > maximum)
    problems.push(`${at}: must be <= ${maximum}`)
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum)
    problems.push(`${at}: must be > ${exclusiveMinimum}`)
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum)
    problems.push(`${at}: must be < ${exclusiveMaximum}`)
}

function checkArray(walk: Walk, schema: Schema, value: unknown[], path: string): void {
  const at = path || '(input)'
  const minItems = own(schema, 'minItems')
  const maxItems = own(schema, 'maxItems')
  if (typeof minItems === 'number' && value.length < minItems)
    walk.problems.push(`${at}: must have at least ${minItems} items`)
  if (typeof maxItems === 'number' && value.length > maxItems)
    walk.problems.push(`${at}: must have at most ${maxItems} items`)
  const items = own(schema, 'items')
  if (items !== undefined && !Array.isArray(items))
    value.forEach((item, index) => apply(walk, items, item, `${path}[${index}]`, NO_REFS))
}

function checkObject(walk: Walk, schema: Schema, value: Record<string, unknown>, path: string): void {
  const properties = own(schema, 'properties')
  const patterns = patternSchemas(own(schema, 'patternProperties'))
  const additional = own(schema, 'additionalProperties')
  const required = own(schema, 'required')
  const prefix = path ? `${path}.` : ''
  if (Array.isArray(required)) {
    for (const key of required) {
      if (typeof key === 'string' && own(value, key) === undefined)
        walk.problems.push(`${prefix}${key}: is required`)
    }
  }
  for (const [key, child] of Object.entries(value)) {
    const childPath = `${prefix}${key}`
    const named = isPlainObject(properties) ? own(properties, key) : undefined
    const patterned = patterns.filter(entry => entry.pattern.test(key))
    if (named !== undefined && child !== undefined)
      apply(walk, named, child, childPath, NO_REFS)
    for (const entry of patterned)
      apply(walk, entry.schema, child, childPath, NO_REFS)
    if (named !== undefined || patterned.length > 0)
      continue
    if (additional === false)
      walk.problems.push(`${childPath}: is not an allowed property`)
    else if (isPlainObject(additional))
      apply(walk, additional, child, childPath, NO_REFS)
  }
}

function patternSchemas(patternProperties: unknown): { pattern: RegExp, schema: unknown }[] {
  if (!isPlainObject(patternProperties))
    return []
  const compiled: { pattern: RegExp, schema: unknown }[] = []
  for (const [source, schema] of Object.entries(patternProperties)) {
    const pattern = compilePattern(source)
    if (pattern)
      compiled.push({ pattern, schema })
  }
  return compiled
}

function matchesType(type: unknown, value: unknown): boolean {
  if (Array.isArray(type))
    return type.some(t => matchesType(t, value))
  switch (type) {
    case 'string': return typeof value === 'string'
    case 'number': return typeof value === 'number' && Number.isFinite(value)
    case 'integer': return Number.isInteger(value)
    case 'boolean': return typeof value === 'boolean'
    case 'array': return Array.isArray(value)
    case 'object': return isPlainObject(value)
    case 'null': return value === null
    default: return true
  }
}

function describeType(type: unknown): string {
  return Array.isArray(type) ? type.join(' or ') : String(type)
}

function typeName(value: unknown): string {
  if (value === null)
    return 'null'
  if (Array.isArray(value))
    return 'array'
  if (Number.isInteger(value))
    return 'integer'
  return typeof value
}

/** `record[key]` when `key` is the record's own property; inherited members never count. */
function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b)
    return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return false
  if (Array.isArray(a) !== Array.isArray(b))
    return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return keysA.length === keysB.length
    && keysA.every(key => Object.hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}
