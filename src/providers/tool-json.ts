/**
 * Tool-call arguments arrive as `input_json_delta` fragments. They are kept in
 * an array and parsed once, when the block stops: re-parsing the growing
 * string on every delta would make long arguments quadratic.
 *
 * Arguments that do not parse to a JSON object (a stream cut short, a model
 * that emitted garbage) are not repaired and not replaced by `{}`, which a
 * tool with only optional parameters would happily run with. The call keeps
 * its place in the transcript, so it stays paired with a result, and its input
 * becomes a marker object that `invalidToolInput()` recognises: the loop
 * answers such a call with an error result instead of running the tool, and a
 * tool schema that forbids extra properties rejects it on its own.
 *
 * Arguments nested deeper than `MAX_TOOL_INPUT_DEPTH` get the same marker:
 * kept as their text, they never become an object that the session's
 * `JSON.stringify`, a schema check or a tool would walk recursively until
 * the stack overflows.
 */

import { nestsDeeperThan } from '../core/json-depth'

/**
 * How many levels of objects and arrays tool-call arguments may nest
 * (`{ "a": [1] }` is 2). Real tool schemas use a handful; a value thousands
 * of levels deep overflows recursive code (serializers, schema checkers).
 */
export const MAX_TOOL_INPUT_DEPTH = 100

/** The marker error of arguments past `MAX_TOOL_INPUT_DEPTH`. */
export const TOO_DEEP_TOOL_INPUT = `arguments are nested more than ${MAX_TOOL_INPUT_DEPTH} levels deep (objects and arrays inside one another)`

/** The single key of a marker input. Chosen so it cannot clash with a real argument name. */
export const INVALID_TOOL_INPUT_KEY = '__invalidToolInput'

/** Tool-call arguments that did not parse as a JSON object, kept so the model can be told why. */
export interface InvalidToolInput {
  /** The argument text exactly as streamed. */
  raw: string
  /** Why it was rejected. */
  error: string
}

/** Collects one block's argument fragments. */
export class ToolJsonBuffer {
  private readonly fragments: string[] = []

  /** Append one streamed fragment of the arguments. */
  push(fragment: string): void {
    if (fragment)
      this.fragments.push(fragment)
  }

  get empty(): boolean {
    return this.fragments.length === 0
  }

  /** Parse the collected text once. No fragments means no arguments: `initial` (the block's own `input`) or `{}`. */
  finish(initial: unknown): Record<string, unknown> {
    if (this.fragments.length === 0)
      return isJsonObject(initial) ? refuseOverDeepInput(initial) : {}
    return parseToolInput(this.fragments.join(''))
  }
}

/** Parse finished argument text into an object, or into a marker input when it is not a JSON object. */
export function parseToolInput(raw: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(raw)
  }
  catch (error) {
    return markInvalid(raw, `arguments are not valid JSON (${(error as Error).message})`)
  }
  if (!isJsonObject(value))
    return markInvalid(raw, 'arguments are not a JSON object')
  // `JSON.parse` itself does not recurse, so any depth parses; past the cap only the text is kept.
  if (nestsDeeperThan(value, MAX_TOOL_INPUT_DEPTH))
    return markInvalid(raw, TOO_DEEP_TOOL_INPUT)
  return value
}

/**
 * `input` itself, or a marker when it nests past `MAX_TOOL_INPUT_DEPTH`: for
 * arguments that reach the loop as an object (a provider that parsed them
 * itself). The text of such arguments is not known and is not rebuilt
 * (serializing them is what overflows), so the marker's `raw` is empty.
 */
export function refuseOverDeepInput(input: Record<string, unknown>): Record<string, unknown> {
  return nestsDeeperThan(input, MAX_TOOL_INPUT_DEPTH) ? markInvalid('', TOO_DEEP_TOOL_INPUT) : input
}

/** The marker's details when a tool call's input could not be parsed, else `undefined`. */
export function invalidToolInput(input: Record<string, unknown>): InvalidToolInput | undefined {
  const marker = input[INVALID_TOOL_INPUT_KEY]
  if (Object.keys(input).length !== 1 || typeof marker !== 'object' || marker === null)
    return undefined
  const { raw, error } = marker as Partial<InvalidToolInput>
  return typeof raw === 'string' && typeof error === 'string' ? { raw, error } : undefined
}

function markInvalid(raw: string, error: string): Record<string, unknown> {
  const marker: InvalidToolInput = { raw, error }
  return { [INVALID_TOOL_INPUT_KEY]: marker }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
