/**
 * The input of a `run` or `resume` invocation, checked before any work: it
 * comes from outside (the ingress), so its size and shape are bounded here,
 * and a bad one is a terminal 400, not something Restate retries.
 */
import type { AgentRunOptions } from '../../agent/options'
import { isThinkingLevel, THINKING_LEVELS } from '../../providers/thinking'
import { RestateInputError } from './terminal'

/** The `AgentRunOptions` fields an invocation may carry: the ones that are plain JSON. */
const FIELDS = ['prompt', 'model', 'system', 'thinking', 'behavior', 'metadata', 'modelOptions', 'runLabel'] as const

type InputField = typeof FIELDS[number]

/** The fields of each prompt part (`PromptPart`): the string ones, and the ones that may be left out. */
const PART_FIELDS: Readonly<Record<string, { strings: readonly string[], optional: readonly string[] }>> = {
  text: { strings: ['text'], optional: [] },
  image: { strings: ['data', 'mediaType'], optional: ['name'] },
  audio: { strings: ['data', 'mediaType'], optional: ['name'] },
  video: { strings: ['data', 'mediaType'], optional: ['name'] },
  document: { strings: ['data', 'encoding', 'mediaType'], optional: ['name'] },
}

/** The fields a model list's entry (`ModelTargetSpec`) may have besides `model`. */
const TARGET_FIELDS: readonly string[] = ['model', 'provider', 'contextWindow']

export function parseRunInput(raw: unknown, maxBytes: number): Pick<AgentRunOptions, InputField> {
  if (raw === null || raw === undefined)
    return {}
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new RestateInputError('The input must be a JSON object with AgentRunOptions fields (prompt, model, system, …)')
  let text: string
  try {
    text = JSON.stringify(raw)
  }
  catch (error) {
    // Nested deeper than the stack allows: the run would fail the same way on its first journal write.
    throw new RestateInputError(`The input cannot be written back as JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > maxBytes)
    throw new RestateInputError(`The input is ${bytes} bytes, over the ${maxBytes}-byte limit (maxEntryBytes)`)
  const unknown = Object.keys(raw).filter(key => !(FIELDS as readonly string[]).includes(key))
  if (unknown.length > 0)
    throw new RestateInputError(`Unknown input fields: ${unknown.join(', ')} (allowed: ${FIELDS.join(', ')})`)
  const input = raw as Record<string, unknown>
  if (input.prompt !== undefined && typeof input.prompt !== 'string' && !Array.isArray(input.prompt))
    throw new RestateInputError('prompt must be a string or an array of prompt parts')
  if (Array.isArray(input.prompt))
    input.prompt.forEach(checkPart)
  for (const key of ['system', 'runLabel', 'thinking'] as const) {
    if (input[key] !== undefined && typeof input[key] !== 'string')
      throw new RestateInputError(`${key} must be a string`)
  }
  if (input.thinking !== undefined && !isThinkingLevel(input.thinking))
    throw new RestateInputError(`thinking must be one of ${THINKING_LEVELS.join(', ')}`)
  if (input.model !== undefined)
    checkModel(input.model)
  for (const key of ['behavior', 'metadata', 'modelOptions'] as const) {
    const value = input[key]
    if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value)))
      throw new RestateInputError(`${key} must be a JSON object`)
  }
  return input as Pick<AgentRunOptions, InputField>
}

/** A prompt part as `PromptPart` types it: a known type, its string fields, nothing else. */
function checkPart(part: unknown, index: number): void {
  const where = `prompt[${index}]`
  if (typeof part !== 'object' || part === null || Array.isArray(part))
    throw new RestateInputError(`${where} must be a prompt part object ({ type: 'text', text } or an image, audio, video or document part)`)
  const fields = part as Record<string, unknown>
  const shape = typeof fields.type === 'string' && Object.hasOwn(PART_FIELDS, fields.type) ? PART_FIELDS[fields.type] : undefined
  if (!shape)
    throw new RestateInputError(`${where}.type must be one of ${Object.keys(PART_FIELDS).join(', ')}`)
  for (const key of shape.strings) {
    if (typeof fields[key] !== 'string')
      throw new RestateInputError(`${where}.${key} must be a string`)
  }
  for (const key of shape.optional) {
    if (fields[key] !== undefined && typeof fields[key] !== 'string')
      throw new RestateInputError(`${where}.${key} must be a string`)
  }
  if (fields.type === 'document' && fields.encoding !== 'text' && fields.encoding !== 'base64')
    throw new RestateInputError(`${where}.encoding must be 'text' or 'base64'`)
  const unknown = Object.keys(fields).filter(key => key !== 'type' && !shape.strings.includes(key) && !shape.optional.includes(key))
  if (unknown.length > 0)
    throw new RestateInputError(`Unknown fields in ${where}: ${unknown.join(', ')}`)
}

/** `model` as `AgentRunOptions` types it: a model id, or a non-empty list of ids and `{ model, provider?, contextWindow? }` targets. */
function checkModel(model: unknown): void {
  if (typeof model === 'string')
    return
  if (!Array.isArray(model) || model.length === 0)
    throw new RestateInputError('model must be a model id, or a non-empty array of model ids and { model, provider?, contextWindow? } targets')
  model.forEach((entry: unknown, index) => {
    if (typeof entry === 'string')
      return
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new RestateInputError(`model[${index}] must be a model id or a { model, provider?, contextWindow? } target`)
    const fields = entry as Record<string, unknown>
    if (typeof fields.model !== 'string')
      throw new RestateInputError(`model[${index}].model must be a string`)
    if (fields.provider !== undefined && typeof fields.provider !== 'string')
      throw new RestateInputError(`model[${index}].provider must be a string`)
    if (fields.contextWindow !== undefined && !(typeof fields.contextWindow === 'number' && Number.isFinite(fields.contextWindow) && fields.contextWindow > 0))
      throw new RestateInputError(`model[${index}].contextWindow must be a positive number`)
    const unknown = Object.keys(fields).filter(key => !TARGET_FIELDS.includes(key))
    if (unknown.length > 0)
      throw new RestateInputError(`Unknown fields in model[${index}]: ${unknown.join(', ')}`)
  })
}
