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
 *
 * For the same reason `pattern` and `patternProperties` run on a linear-time
 * engine (RE2, see `schema-pattern.ts`): a pattern like `^(a+)+$` against a
 * string the model sent cannot freeze the process. A pattern RE2 cannot run
 * (lookaround, backreferences) is run by V8 only for a schema the host wrote;
 * in a schema marked with `untrustedSchema` (every MCP tool's) it is ignored
 * like an unknown keyword.
 */

import type { SchemaPattern } from './schema-pattern'
import { resolveLocalRef } from '../schema/refs'
import { listOptions } from '../text/problem-list'
import { compileSchemaPattern } from './schema-pattern'

type Schema = Record<string, unknown>

interface Walk {
  /** The schema `$ref`s resolve against. */
  readonly root: Schema
  /** Whether the host wrote the schema: only then may a pattern RE2 cannot run use V8's backtracking engine. */
  readonly trusted: boolean
  readonly problems: string[]
  /** What one check's walks share, trial walks of `anyOf`/`oneOf` included. */
  readonly check: CheckState
}

interface CheckState {
  /** Subschemas applied so far (see `MAX_SCHEMA_CHECK_STEPS`). */
  steps: number
  /** Each `$ref` resolved once: a reference graph may lead to one target many times. */
  readonly targets: Map<string, unknown>
}

/**
 * The `$ref`s followed on one value, newest first. A list sharing its tail
 * rather than a set copied per reference: a reference costs one link, not a
 * copy of every reference before it.
 */
interface Followed {
  readonly ref: string
  readonly before: Followed | undefined
}

/** No `$ref` followed yet. */
const NO_REFS: Followed | undefined = undefined

function hasFollowed(followed: Followed | undefined, ref: string): boolean {
  for (let link = followed; link !== undefined; link = link.before) {
    if (link.ref === ref)
      return true
  }
  return false
}

/**
 * Each pattern compiled once, not on every call that checks it. Sharing is
 * safe: the patterns have no `g` or `y` flag, so `test` keeps no state, and
 * an entry holds both engines, so schemas of either origin share it.
 */
const compiledPatterns = new Map<string, SchemaPattern | undefined>()
const MAX_COMPILED_PATTERNS = 512

/** Root schemas the host did not write: see `untrustedSchema`. */
const untrustedSchemas = new WeakSet<object>()

/**
 * Marks `schema` (a root schema, as later passed to `checkJsonSchema`) as
 * written by someone other than the host, such as an MCP server, and returns
 * it. Its patterns then never run on V8's backtracking engine: one that RE2
 * cannot run is ignored. The mark belongs to this object: a copy of it is a
 * schema the host wrote.
 */
export function untrustedSchema<T extends Schema>(schema: T): T {
  untrustedSchemas.add(schema)
  return schema
}

/**
 * The keywords of one schema object that the checker reads, looked up once
 * per object rather than on every value checked against it (a tool's schema
 * checks every call's input). A schema is read at its first check: tool
 * schemas are fixed when the tool is defined, and one built anew (an MCP
 * listing) is a new object with its own entry.
 */
interface Keywords {
  readonly ref: string | undefined
  readonly hasConst: boolean
  readonly constValue: unknown
  readonly options: readonly unknown[] | undefined
  readonly allOf: readonly unknown[] | undefined
  readonly alternatives: readonly unknown[] | undefined
  readonly type: unknown
  readonly minLength: number | undefined
  readonly maxLength: number | undefined
  readonly pattern: string | undefined
  readonly minimum: number | undefined
  readonly maximum: number | undefined
  readonly exclusiveMinimum: number | undefined
  readonly exclusiveMaximum: number | undefined
  readonly minItems: number | undefined
  readonly maxItems: number | undefined
  /** `items` when it is one schema for every item (a tuple form is not checked). */
  readonly items: unknown
  readonly properties: Readonly<Record<string, unknown>> | undefined
  readonly patternProperties: readonly PatternSchema[]
  readonly additional: unknown
  readonly required: readonly unknown[] | undefined
}

interface PatternSchema {
  readonly pattern: SchemaPattern
  readonly schema: unknown
}

const keywordsBySchema = new WeakMap<Schema, Keywords>()

/** No pattern a key matches: shared, never edited. */
const NO_PATTERNS: readonly PatternSchema[] = []

function keywordsOf(schema: Schema): Keywords {
  let keywords = keywordsBySchema.get(schema)
  if (keywords === undefined) {
    keywords = readKeywords(schema)
    keywordsBySchema.set(schema, keywords)
  }
  return keywords
}

function readKeywords(schema: Schema): Keywords {
  const number = (name: string): number | undefined => {
    const found = own(schema, name)
    return typeof found === 'number' ? found : undefined
  }
  const list = (name: string): readonly unknown[] | undefined => {
    const found = own(schema, name)
    return Array.isArray(found) ? found : undefined
  }
  const ref = own(schema, '$ref')
  const pattern = own(schema, 'pattern')
  const items = own(schema, 'items')
  const properties = own(schema, 'properties')
  const hasConst = Object.hasOwn(schema, 'const')
  const alternatives = own(schema, 'anyOf') ?? own(schema, 'oneOf')
  return {
    ref: typeof ref === 'string' ? ref : undefined,
    hasConst,
    constValue: hasConst ? schema.const : undefined,
    options: list('enum'),
    allOf: list('allOf'),
    alternatives: Array.isArray(alternatives) ? alternatives : undefined,
    type: own(schema, 'type'),
    minLength: number('minLength'),
    maxLength: number('maxLength'),
    pattern: typeof pattern === 'string' ? pattern : undefined,
    minimum: number('minimum'),
    maximum: number('maximum'),
    exclusiveMinimum: number('exclusiveMinimum'),
    exclusiveMaximum: number('exclusiveMaximum'),
    minItems: number('minItems'),
    maxItems: number('maxItems'),
    items: Array.isArray(items) ? undefined : items,
    properties: isPlainObject(properties) ? properties : undefined,
    patternProperties: patternSchemas(own(schema, 'patternProperties')),
    additional: own(schema, 'additionalProperties'),
    required: list('required'),
  }
}

/**
 * Most subschemas one check may apply to parts of the value. Without `$ref`
 * the work is bounded by the size of the schema times that of the value, but
 * references make the schema a graph whose paths are counted, not its nodes:
 * 40 `$defs`, each an `allOf` (or an `anyOf` that fails) of two references to
 * the next, are 2^40 steps against a single number, run synchronously where
 * no timeout or abort can end them. A million steps take well under a second.
 */
export const MAX_SCHEMA_CHECK_STEPS = 1_000_000

/**
 * A check went past `MAX_SCHEMA_CHECK_STEPS`. Thrown rather than reported as
 * a problem of the value: the value may be fine, the schema is what cannot be
 * checked. The checks of what a model or a server sent already turn a throw
 * into an error: a tool call's input check and an MCP tool's output check
 * (through the SDK) into an error result, an elicitation answer's check into
 * a JSON-RPC error to the server.
 */
export class SchemaTooComplexError extends RangeError {
  override name = 'SchemaTooComplexError'
  constructor() {
    super(`checking against the schema took more than ${MAX_SCHEMA_CHECK_STEPS} steps: its references branch over and over on one value`)
  }
}

/** Check a value against the JSON Schema subset tools use; each problem comes back as one readable line. */
export function checkJsonSchema(schema: Schema, value: unknown): string[] {
  const walk: Walk = { root: schema, trusted: !untrustedSchemas.has(schema), problems: [], check: { steps: 0, targets: new Map() } }
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
function visit(walk: Walk, schema: Schema, value: unknown, path: string, followed: Followed | undefined): void {
  if (++walk.check.steps > MAX_SCHEMA_CHECK_STEPS)
    throw new SchemaTooComplexError()
  const { problems } = walk
  const at = path || '(input)'
  const keywords = keywordsOf(schema)

  const ref = keywords.ref
  if (ref !== undefined && !hasFollowed(followed, ref)) {
    const target = resolveTarget(walk, ref)
    // A reference that leads outside the schema is left unchecked: a host's
    // schema cannot have one (createAgent refuses it), and an MCP server
    // checks its own input against the documents it refers to.
    if (target !== undefined)
      apply(walk, target, value, path, { ref, before: followed })
  }

  if (keywords.hasConst && !deepEqual(keywords.constValue, value)) {
    problems.push(`${at}: must be ${JSON.stringify(keywords.constValue)}`)
    return
  }
  const options = keywords.options
  if (options !== undefined && !options.some(option => deepEqual(option, value))) {
    problems.push(`${at}: must be one of ${listOptions(options)}`)
    return
  }
  if (keywords.allOf !== undefined) {
    for (const part of keywords.allOf)
      apply(walk, part, value, path, followed)
  }
  const alternatives = keywords.alternatives
  if (alternatives !== undefined && !alternatives.some(option => matches(walk, option, value, followed))) {
    problems.push(`${at}: does not match any allowed shape`)
    return
  }
  const type = keywords.type
  if (type !== undefined && !matchesType(type, value)) {
    problems.push(`${at}: expected ${describeType(type)}, got ${typeName(value)}`)
    return
  }

  if (typeof value === 'string')
    checkString(walk, keywords, value, at)
  else if (typeof value === 'number')
    checkNumber(keywords, value, at, problems)
  else if (Array.isArray(value))
    checkArray(walk, keywords, value, path)
  else if (isPlainObject(value))
    checkObject(walk, keywords, value, path)
}

function resolveTarget(walk: Walk, ref: string): unknown {
  const { targets } = walk.check
  if (targets.has(ref))
    return targets.get(ref)
  const target = resolveLocalRef(walk.root, ref)
  targets.set(ref, target)
  return target
}

/** A subschema, which JSON Schema also lets be `true` (anything) or `false` (nothing). */
function apply(walk: Walk, schema: unknown, value: unknown, path: string, followed: Followed | undefined): void {
  if (schema === false)
    walk.problems.push(`${path || '(input)'}: is not allowed here`)
  else if (isPlainObject(schema))
    visit(walk, schema, value, path, followed)
}

function matches(walk: Walk, schema: unknown, value: unknown, followed: Followed | undefined): boolean {
  // The trial draws on the same steps: alternatives retried at every level are where the work multiplies.
  const trial: Walk = { root: walk.root, trusted: walk.trusted, problems: [], check: walk.check }
  apply(trial, schema, value, '', followed)
  return trial.problems.length === 0
}

function checkString(walk: Walk, keywords: Keywords, value: string, at: string): void {
  const { problems } = walk
  const { minLength, maxLength } = keywords
  if (minLength !== undefined || maxLength !== undefined) {
    // JSON Schema counts characters (code points), not UTF-16 units.
    const length = codePointLength(value)
    if (minLength !== undefined && length < minLength)
      problems.push(`${at}: must have at least ${minLength} characters`)
    if (maxLength !== undefined && length > maxLength)
      problems.push(`${at}: must have at most ${maxLength} characters`)
  }
  const source = keywords.pattern
  if (source !== undefined) {
    const pattern = compilePattern(source)
    if (pattern && patternMatches(pattern, value, walk.trusted) === false)
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
 * The pattern for `source`, cached. A pattern JavaScript rejects in both
 * modes (Unicode first, then legacy, as `compileSchemaPattern` tries them)
 * is ignored like an unknown keyword rather than failing the tool call.
 */
function compilePattern(source: string): SchemaPattern | undefined {
  const known = compiledPatterns.get(source)
  if (known !== undefined || compiledPatterns.has(source))
    return known
  const pattern = compileSchemaPattern(source)
  // Patterns come from tool schemas, a fixed set per agent; the cap only stops a server that sends new ones forever.
  if (compiledPatterns.size >= MAX_COMPILED_PATTERNS)
    compiledPatterns.clear()
  compiledPatterns.set(source, pattern)
  return pattern
}

/**
 * Whether `text` matches, in linear time whenever RE2 can run the pattern.
 * One it cannot runs on V8 only in the host's own schema; otherwise the
 * answer is `undefined`: not known, so the pattern decides nothing.
 */
function patternMatches(pattern: SchemaPattern, text: string, trusted: boolean): boolean | undefined {
  if (pattern.linear !== undefined)
    return pattern.linear(text)
  return trusted ? pattern.backtracking.test(text) : undefined
}

function checkNumber(keywords: Keywords, value: number, at: string, problems: string[]): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = keywords
  if (minimum !== undefined && value < minimum)
    problems.push(`${at}: must be >= ${minimum}`)
  if (maximum !== undefined && value > maximum)
    problems.push(`${at}: must be <= ${maximum}`)
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum)
    problems.push(`${at}: must be > ${exclusiveMinimum}`)
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum)
    problems.push(`${at}: must be < ${exclusiveMaximum}`)
}

function checkArray(walk: Walk, keywords: Keywords, value: unknown[], path: string): void {
  const at = path || '(input)'
  const { minItems, maxItems, items } = keywords
  if (minItems !== undefined && value.length < minItems)
    walk.problems.push(`${at}: must have at least ${minItems} items`)
  if (maxItems !== undefined && value.length > maxItems)
    walk.problems.push(`${at}: must have at most ${maxItems} items`)
  if (items !== undefined)
    value.forEach((item, index) => apply(walk, items, item, `${path}[${index}]`, NO_REFS))
}

function checkObject(walk: Walk, keywords: Keywords, value: Record<string, unknown>, path: string): void {
  const { properties, patternProperties, additional, required } = keywords
  const prefix = path ? `${path}.` : ''
  if (required !== undefined) {
    for (const key of required) {
      if (typeof key === 'string' && own(value, key) === undefined)
        walk.problems.push(`${prefix}${key}: is required`)
    }
  }
  for (const key of Object.keys(value)) {
    const child = value[key]
    const childPath = `${prefix}${key}`
    const named = properties !== undefined ? own(properties, key) : undefined
    let patterned: PatternSchema[] | undefined
    // A pattern that cannot be run here might have matched the key, so `additionalProperties` cannot judge it.
    let undecided = false
    for (const entry of patternProperties) {
      const matched = patternMatches(entry.pattern, key, walk.trusted)
      if (matched === undefined)
        undecided = true
      else if (matched)
        (patterned ??= []).push(entry)
    }
    if (named !== undefined && child !== undefined)
      apply(walk, named, child, childPath, NO_REFS)
    for (const entry of patterned ?? NO_PATTERNS)
      apply(walk, entry.schema, child, childPath, NO_REFS)
    if (named !== undefined || patterned !== undefined || undecided)
      continue
    if (additional === false)
      walk.problems.push(`${childPath}: is not an allowed property`)
    else if (isPlainObject(additional))
      apply(walk, additional, child, childPath, NO_REFS)
  }
}

function patternSchemas(patternProperties: unknown): PatternSchema[] {
  if (!isPlainObject(patternProperties))
    return []
  const compiled: PatternSchema[] = []
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
