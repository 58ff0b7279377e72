import type { NeedsApproval, ToolContext, ToolDef, ToolOutput } from './types'
// Aliased: a host bundle's banner often declares its own top-level `createRequire`.
import { createRequire as requireFromHere } from 'node:module'
import { joinProblems } from '../text/problem-list'

/**
 * Any zod 4 schema, whichever copy of zod built it: the host's own zod 4.x,
 * zidane's, or `zod/v4` from zod 3.25. Typed structurally so that two copies
 * of zod in one project do not make `tool()` reject the host's schemas.
 */
export interface ZodSchemaLike {
  readonly _zod: { readonly output: unknown }
}

/** The parsed value a zod 4 schema produces. */
export type ZodSchemaOutput<Schema extends ZodSchemaLike> = Schema['_zod']['output']

/** What `tool()` needs: a name, a description, a zod schema and the function to run. */
export interface ToolFromSchemaOptions<Schema extends ZodSchemaLike> {
  name: string
  description: string
  /** A zod 4 schema for the input (zod ≥ 4.0, or `zod/v4` from zod 3.25); its JSON Schema is what the model sees. */
  input: Schema
  /** Run the tool on arguments that already passed the schema. */
  execute: (input: ZodSchemaOutput<Schema>, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>
  /** Whether calls may run in parallel with other safe calls of the same turn (a function decides per input). */
  isConcurrencySafe?: boolean | ((input: ZodSchemaOutput<Schema>) => boolean)
  /** Whether a call waits for the host's approval before it runs (a function decides per parsed input); see docs/approval.md. */
  needsApproval?: NeedsApproval<ZodSchemaOutput<Schema>>
}

/**
 * Build a tool from a zod schema. The model sees the schema's JSON Schema
 * (input side, so fields with defaults stay optional); the model's arguments
 * are parsed before `execute`, and a parse failure is returned to the model
 * as an error result naming each bad field. A zod 3 schema is refused with a
 * `TypeError` saying what to import instead.
 */
export function tool<Schema extends ZodSchemaLike>(options: ToolFromSchemaOptions<Schema>): ToolDef<ZodSchemaOutput<Schema>> {
  const standard = standardOf(options.name, options.input)
  const inputSchema = inputJsonSchema(options.input)
  return {
    spec: { name: options.name, description: options.description, inputSchema },
    execute: options.execute,
    isConcurrencySafe: options.isConcurrencySafe,
    ...(options.needsApproval === undefined ? {} : { needsApproval: options.needsApproval }),
    validate(input) {
      const result = standard.validate(input)
      if (isPromiseLike(result)) {
        // zod falls back to its asynchronous parser when the synchronous one throws (an async refinement, or
        // a stack overflow on a deep value); that promise may reject, and is never left without a handler.
        ignoreSettlement(result)
        return { ok: false, error: `(input): the schema of tool "${options.name}" could not check the input synchronously (an asynchronous schema, or an input it cannot walk); tool() needs a synchronous schema` }
      }
      if (!result.issues)
        return { ok: true, value: result.value as ZodSchemaOutput<Schema> }
      return { ok: false, error: formatIssues(result.issues) }
    },
  }
}

/** The Standard Schema face every zod 4 schema has; its `validate` is the schema's own parser. */
interface StandardFace {
  validate: (value: unknown) => StandardResult | PromiseLike<StandardResult>
}

type StandardResult
  = | { value: unknown, issues?: undefined }
    | { issues: readonly StandardIssue[] }

interface StandardIssue {
  message: string
  path?: readonly (PropertyKey | { key: PropertyKey })[]
}

function standardOf(name: string, schema: unknown): StandardFace {
  const candidate = schema as { '_zod'?: unknown, '_def'?: unknown, '~standard'?: Partial<StandardFace> } | null
  if (candidate && typeof candidate === 'object' && candidate._zod && typeof candidate['~standard']?.validate === 'function')
    return candidate['~standard'] as StandardFace
  if (candidate && typeof candidate === 'object' && candidate._def) {
    throw new TypeError(
      `tool "${name}": \`input\` is a zod 3 schema; tool() needs a zod 4 schema. `
      + `Install zod 4 (\`npm install zod@^4\`), or with zod 3.25 import { z } from 'zod/v4'.`,
    )
  }
  throw new TypeError(`tool "${name}": \`input\` must be a zod 4 schema (for a raw JSON Schema, write a ToolDef instead)`)
}

/**
 * The input-side JSON Schema, without its `$schema` dialect key. A schema
 * built by another copy of zod keeps its `.describe()` / `.meta()` text in
 * that copy's registry, which another copy's converter cannot see; the
 * override reads each node's own metadata back so no description is ever
 * dropped.
 *
 * The schema's own `toJSONSchema` method (zod 4 classic schemas have one)
 * converts it with the zod that built it, so `import('zidane')` never loads
 * zod itself: a host calling `tool()` has loaded its zod already. A schema
 * without the method (older zod 4 releases, `zod/mini`) falls back to
 * zidane's own zod, required on first need.
 */
export function inputJsonSchema(schema: unknown): Record<string, unknown> {
  const params: JsonSchemaParams = {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => copyOwnMetadata(zodSchema, jsonSchema),
  }
  const own = (schema as { toJSONSchema?: unknown }).toJSONSchema
  const converted = typeof own === 'function'
    ? (own as (params: JsonSchemaParams) => unknown).call(schema, params)
    : zodConverter()(schema, params)
  const { $schema: _dialect, ...inputSchema } = converted as Record<string, unknown>
  return inputSchema
}

/** The options zidane passes to zod's JSON Schema converter (a structural subset of zod's own type). */
interface JsonSchemaParams {
  io: 'input'
  unrepresentable: 'any'
  override: (context: { zodSchema: unknown, jsonSchema: Record<string, unknown> }) => void
}

type ZodConverter = (schema: unknown, params: JsonSchemaParams) => unknown

let converter: ZodConverter | undefined

/** zidane's own zod's converter, loaded once, synchronously, the first time a schema has no method of its own. */
function zodConverter(): ZodConverter {
  converter ??= (requireFromHere(import.meta.url)('zod') as { toJSONSchema: ZodConverter }).toJSONSchema
  return converter
}

function copyOwnMetadata(schema: unknown, target: Record<string, unknown>): void {
  const meta = (schema as { meta?: () => unknown }).meta
  if (typeof meta !== 'function')
    return
  const own = meta.call(schema)
  if (!own || typeof own !== 'object')
    return
  for (const [key, value] of Object.entries(own)) {
    if (key !== 'id' && value !== undefined && !(key in target))
      target[key] = value
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function'
}

/** Settle a result nobody waits for without an unhandled rejection; a throwing `then` is ignored too. */
export function ignoreSettlement(result: PromiseLike<unknown>): void {
  try {
    result.then(undefined, () => {})
  }
  catch {
    // A thenable whose `then` throws has nothing left to settle.
  }
}

function formatIssues(issues: readonly StandardIssue[]): string {
  return joinProblems(issues.map((issue) => {
    const path = issue.path && issue.path.length > 0
      ? issue.path.map(segment => String(typeof segment === 'object' ? segment.key : segment)).join('.')
      : '(input)'
    return `${path}: ${issue.message}`
  }))
}
