/** Structured output: the schema a run's final answer must match, and how many repair turns it gets. */

import type { KnobCheck } from './define'
import { schemaRefProblem } from '../schema/refs'
import { defineKnobs, wholeAtLeast } from './define'

/**
 * A zod 4 schema, from whichever copy of zod built it (zod 4.x, or `zod/v4`
 * of zod 3.25). Typed by shape so two copies of zod in one project agree.
 */
export interface OutputZodSchema {
  readonly _zod: { readonly output: unknown }
}

/** What `behavior.schema` accepts: a JSON Schema object, or a zod 4 schema. */
export type OutputSchema = Readonly<Record<string, unknown>> | OutputZodSchema

/** Structured output of a run. */
export interface OutputKnobs {
  /**
   * The shape of the run's final answer: a JSON Schema object or a zod 4
   * schema. The model may call tools first and gives its answer last; the
   * answer is validated and lands on `stats.output`. A zod 3 schema is
   * refused. Default off (the answer is free text).
   */
  schema?: OutputSchema
  /**
   * Repair turns an invalid output gets, each told exactly what failed,
   * before the run ends with `stopReason: 'output-invalid'`. Default 2.
   */
  maxOutputRepairs?: number
}

/** Defaults of the output slice. */
export const OUTPUT_DEFAULTS = Object.freeze({
  maxOutputRepairs: 2,
} satisfies OutputKnobs)

/** Whether `value` is a zod 4 schema (it has the `_zod` internals and the Standard Schema face). */
export function isZodOutputSchema(value: unknown): value is OutputZodSchema & { '~standard': { validate: (value: unknown) => unknown } } {
  const candidate = value as { '_zod'?: unknown, '~standard'?: { validate?: unknown } } | null
  return typeof candidate === 'object' && candidate !== null && typeof candidate._zod === 'object' && candidate._zod !== null
    && typeof candidate['~standard']?.validate === 'function'
}

/** A zod 3 schema: `_def` internals without zod 4's `_zod`. */
export function isZod3Schema(value: unknown): boolean {
  const candidate = value as { _def?: unknown, _zod?: unknown, safeParse?: unknown } | null
  return typeof candidate === 'object' && candidate !== null && candidate._zod === undefined
    && typeof candidate._def === 'object' && typeof candidate.safeParse === 'function'
}

const isOutputSchema: KnobCheck = (value) => {
  if (isZod3Schema(value))
    return { path: '', expected: 'a JSON Schema object or a zod 4 schema (this is a zod 3 schema: install zod 4, or with zod 3.25 import { z } from \'zod/v4\')' }
  if (isZodOutputSchema(value))
    return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { path: '', expected: 'a JSON Schema object or a zod 4 schema' }
  const problem = schemaRefProblem(value as Record<string, unknown>)
  return problem ? { path: '', expected: `a JSON Schema zidane can check (${problem})` } : undefined
}

/** The output slice. */
export const OUTPUT_KNOBS = defineKnobs<OutputKnobs, typeof OUTPUT_DEFAULTS>('output', OUTPUT_DEFAULTS, {
  schema: { doc: 'JSON Schema or zod 4 schema of the final answer; the validated value is `stats.output`.', defaultLabel: 'off', check: isOutputSchema },
  maxOutputRepairs: { doc: 'Repair turns an invalid output gets before the run ends with `output-invalid`.', check: wholeAtLeast(0) },
})
