/**
 * The input of a `run` or `resume` invocation, checked before any work: it
 * comes from outside (the ingress), so its size and shape are bounded here,
 * and a bad one is a terminal 400, not something Restate retries.
 */
import type { AgentRunOptions } from '../../agent/options'
import { RestateInputError } from './terminal'

/** The `AgentRunOptions` fields an invocation may carry: the ones that are plain JSON. */
const FIELDS = ['prompt', 'model', 'system', 'thinking', 'behavior', 'metadata', 'modelOptions', 'runLabel'] as const

type InputField = typeof FIELDS[number]

export function parseRunInput(raw: unknown, maxBytes: number): Pick<AgentRunOptions, InputField> {
  if (raw === null || raw === undefined)
    return {}
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new RestateInputError('The input must be a JSON object with AgentRunOptions fields (prompt, model, system, …)')
  const bytes = Buffer.byteLength(JSON.stringify(raw), 'utf8')
  if (bytes > maxBytes)
    throw new RestateInputError(`The input is ${bytes} bytes, over the ${maxBytes}-byte limit (maxEntryBytes)`)
  const unknown = Object.keys(raw).filter(key => !(FIELDS as readonly string[]).includes(key))
  if (unknown.length > 0)
    throw new RestateInputError(`Unknown input fields: ${unknown.join(', ')} (allowed: ${FIELDS.join(', ')})`)
  const input = raw as Record<string, unknown>
  if (input.prompt !== undefined && typeof input.prompt !== 'string' && !Array.isArray(input.prompt))
    throw new RestateInputError('prompt must be a string or an array of prompt parts')
  for (const key of ['system', 'runLabel', 'thinking'] as const) {
    if (input[key] !== undefined && typeof input[key] !== 'string')
      throw new RestateInputError(`${key} must be a string`)
  }
  for (const key of ['behavior', 'metadata', 'modelOptions'] as const) {
    const value = input[key]
    if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value)))
      throw new RestateInputError(`${key} must be a JSON object`)
  }
  return input as Pick<AgentRunOptions, InputField>
}
