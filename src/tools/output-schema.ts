/**
 * Structured output's schema side: `behavior.schema` (a JSON Schema object or
 * a zod 4 schema) turned into the final-answer tool the model calls, the
 * checks that validate what it gives, and a tolerant reader for output that
 * is still streaming.
 */

import type { OutputSchema } from '../knobs/output-knobs'
import type { ToolDef } from './types'
import { nestsDeeperThan } from '../core/json-depth'
import { isZod3Schema, isZodOutputSchema } from '../knobs/output-knobs'
import { MAX_TOOL_INPUT_DEPTH } from '../providers/tool-json'
import { joinProblems } from '../text/problem-list'
import { checkJsonSchema } from './json-schema'
import { ignoreSettlement, inputJsonSchema } from './tool'

/** The name of the tool the model gives its structured output through. */
export const OUTPUT_TOOL_NAME = 'final_answer'

/** A checked output: the value (zod's parsed value for a zod schema), or every problem found. */
export type OutputCheck = { ok: true, value: unknown } | { ok: false, problems: string[] }

/** A schema ready to use: the final-answer tool's input schema and the checks. */
export interface CompiledOutputSchema {
  /** The JSON Schema of the output itself (for a zod schema, its input side). */
  readonly jsonSchema: Record<string, unknown>
  /** True when the output is not an object: the tool's input carries it as `value`. */
  readonly wrapped: boolean
  /** The final-answer tool's input schema (an object, as every provider wants for tool input). */
  readonly toolInputSchema: Record<string, unknown>
  /** Check an output value against the schema. */
  check: (value: unknown) => OutputCheck
  /** Check the final-answer tool's input (unwrapping `value` for a non-object schema). */
  checkToolInput: (input: unknown) => OutputCheck
}

const ROOT = '(output)'
const compiled = new WeakMap<object, CompiledOutputSchema>()

/**
 * Compile `behavior.schema` once per schema object (the result is a pure
 * function of it, so it is remembered). Throws a `TypeError` for a zod 3
 * schema or a value that is no schema; `createAgent` refuses both earlier.
 */
export function compileOutputSchema(schema: OutputSchema): CompiledOutputSchema {
  const known = compiled.get(schema)
  if (known)
    return known
  const result = isZodOutputSchema(schema) ? compileZod(schema) : compileJson(schema)
  compiled.set(schema, result)
  return result
}

function compileJson(schema: OutputSchema): CompiledOutputSchema {
  if (isZod3Schema(schema))
    throw new TypeError('behavior.schema is a zod 3 schema; structured output needs a zod 4 schema (install zod 4, or with zod 3.25 import { z } from \'zod/v4\') or a JSON Schema object')
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new TypeError('behavior.schema must be a JSON Schema object or a zod 4 schema')
  const jsonSchema = schema as Record<string, unknown>
  return build(jsonSchema, (value) => {
    const problems = checkJsonSchema(jsonSchema, value).map(rootAsOutput)
    return problems.length === 0 ? { ok: true, value } : { ok: false, problems }
  })
}

interface StandardIssue {
  message: string
  path?: readonly (PropertyKey | { key: PropertyKey })[]
}

type StandardResult = { value: unknown, issues?: undefined } | { issues: readonly StandardIssue[] }

function compileZod(schema: OutputSchema & { '~standard': { validate: (value: unknown) => unknown } }): CompiledOutputSchema {
  const jsonSchema = inputJsonSchema(schema)
  const standard = schema['~standard']
  return build(jsonSchema, (value) => {
    const result = standard.validate(value) as StandardResult | PromiseLike<StandardResult>
    if (typeof (result as PromiseLike<unknown>).then === 'function') {
      // zod's asynchronous fallback may reject (a stack overflow on a deep value): never left unhandled.
      ignoreSettlement(result as PromiseLike<StandardResult>)
      return { ok: false, problems: [`${ROOT}: behavior.schema could not check the output synchronously (an asynchronous zod schema, or an output it cannot walk); structured output needs a synchronous schema`] }
    }
    const settled = result as StandardResult
    if (!settled.issues)
      return { ok: true, value: settled.value }
    return { ok: false, problems: settled.issues.map(formatIssue) }
  })
}

/**
 * A structured answer given as text is `JSON.parse`d whole, which takes any
 * nesting; the final-answer tool's arguments are refused past
 * `MAX_TOOL_INPUT_DEPTH` before this check. Without the same bound here, a
 * text answer of `[` × 200,000 passed a permissive schema, became the run's
 * `output`, and the session could not write the run record that keeps it
 * (the run then threw `SessionStoreError`).
 */
const TOO_DEEP_OUTPUT = `${ROOT}: the answer is nested more than ${MAX_TOOL_INPUT_DEPTH} levels deep (objects and arrays inside one another); give a flatter value`

function build(jsonSchema: Record<string, unknown>, checkValue: (value: unknown) => OutputCheck): CompiledOutputSchema {
  // Measured without recursion, before any schema check walks the value.
  const check = (value: unknown): OutputCheck => nestsDeeperThan(value, MAX_TOOL_INPUT_DEPTH)
    ? { ok: false, problems: [TOO_DEEP_OUTPUT] }
    : checkValue(value)
  const wrapped = jsonSchema.type !== 'object'
  const toolInputSchema = wrapped
    ? { type: 'object', properties: { value: jsonSchema }, required: ['value'], additionalProperties: false }
    : jsonSchema
  return {
    jsonSchema,
    wrapped,
    toolInputSchema,
    check,
    checkToolInput: (input) => {
      if (!wrapped)
        return check(input)
      const record = input as { value?: unknown } | null
      if (typeof record !== 'object' || record === null || !('value' in record))
        return { ok: false, problems: ['value: is required (the output goes in `value`)'] }
      return check(record.value)
    },
  }
}

function rootAsOutput(problem: string): string {
  return problem.startsWith('(input)') ? `${ROOT}${problem.slice('(input)'.length)}` : problem
}

function formatIssue(issue: StandardIssue): string {
  const path = issue.path && issue.path.length > 0
    ? issue.path.map(segment => String(typeof segment === 'object' ? segment.key : segment)).join('.')
    : ROOT
  return `${path}: ${issue.message}`
}

/**
 * The final-answer tool for a compiled schema. Its input is validated by the
 * loop like any tool's; a failure reaches the model as an error result that
 * lists every problem, which is the repair message.
 */
export function outputTool(schema: CompiledOutputSchema): ToolDef {
  const description = schema.wrapped
    ? 'Give the final answer of this task. Call it once, last, after any other tools you need; put the answer in `value`. It must match the schema exactly.'
    : 'Give the final answer of this task. Call it once, last, after any other tools you need; its arguments are the answer and must match the schema exactly.'
  return {
    spec: { name: OUTPUT_TOOL_NAME, description, inputSchema: schema.toolInputSchema },
    isConcurrencySafe: true,
    validate(input) {
      const checked = schema.checkToolInput(input)
      if (checked.ok)
        return { ok: true, value: input }
      return { ok: false, error: `${joinProblems(checked.problems)}. Call ${OUTPUT_TOOL_NAME} again with the corrected output.` }
    },
    execute: () => 'Output received.',
  }
}

/**
 * The value a prefix of a JSON text stands for so far: open strings, arrays
 * and objects are closed, and a member still being written is left out.
 * `undefined` when nothing usable has arrived. One pass over the text.
 */
export function parsePartialJson(text: string): unknown {
  // The closer of each open container, outermost first; the first `depth` are open. Entries past `depth` stay
  // in place for the cut: one below the cut's depth is overwritten only by a container opening there, which
  // moves the cut past it. So the closers are joined once, at the end, never per bracket.
  const closers: string[] = []
  let depth = 0
  // Points where everything before is whole members: just after `{` or `[`, or just before a `,`.
  let cut = -1
  let cutDepth = 0
  let inString = false
  let escaped = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (escaped)
        escaped = false
      else if (char === '\\')
        escaped = true
      else if (char === '"')
        inString = false
      continue
    }
    switch (char) {
      case '"':
        inString = true
        break
      case '{':
      case '[':
        closers[depth++] = char === '{' ? '}' : ']'
        cut = i + 1
        cutDepth = depth
        break
      case '}':
      case ']':
        if (depth > 0)
          depth--
        break
      case ',':
        cut = i
        cutDepth = depth
        break
    }
  }
  // An open string is closed where it stops (a dangling backslash dropped), so text shows as it streams.
  const body = inString ? `${escaped ? text.slice(0, -1) : text}"` : text
  const full = tryParse(`${body}${closersOf(closers, depth)}`)
  if (full !== undefined)
    return full
  return cut === -1 ? undefined : tryParse(`${text.slice(0, cut)}${closersOf(closers, cutDepth)}`)
}

/** The closers of the first `depth` containers, innermost first. */
function closersOf(closers: readonly string[], depth: number): string {
  return closers.slice(0, depth).reverse().join('')
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  }
  catch {
    return undefined
  }
}

/**
 * Read a text answer as the output: the whole text, or the body of one
 * fenced code block, parsed as JSON. `undefined` when it is not JSON.
 */
export function jsonFromText(text: string): { value: unknown } | undefined {
  const trimmed = text.trim()
  const body = fencedBody(trimmed) ?? trimmed
  if (body === '')
    return undefined
  try {
    return { value: JSON.parse(body) as unknown }
  }
  catch {
    return undefined
  }
}

/** The body of a text that is one fenced code block (```json … ```), if it is one. */
function fencedBody(text: string): string | undefined {
  if (!text.startsWith('```') || !text.endsWith('```') || text.length < 6)
    return undefined
  const firstLine = text.indexOf('\n')
  return firstLine === -1 ? undefined : text.slice(firstLine + 1, -3).trim()
}
