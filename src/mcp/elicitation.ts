/**
 * MCP elicitation (`elicitation/create`, form mode): a server asks the user
 * for a few values in the middle of a request. The client announces the
 * capability only when the host can answer; otherwise a server that asks
 * anyway gets a clean `decline` rather than "Method not found".
 */

import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type { AskUserCallback } from '../tools/interaction'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ElicitRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { OperationTimeoutError } from '../errors'

/**
 * `mcp:elicitation`: a server asks the user for input. Show `message` and a
 * form for `requestedSchema` (prefilled with `defaults`), then set `action`,
 * and `content` when the user accepts. Left unset, the answer is `'decline'`.
 */
export interface McpElicitationContext {
  server: string
  /** What the server asks, written for the user. */
  message: string
  /** JSON Schema of the answer: a flat object of string, number, integer, boolean and enum fields. */
  requestedSchema: Record<string, unknown>
  /** Each field's `default` from the schema: the form's initial values. Fields an accepted answer leaves out get them too. */
  defaults: Record<string, unknown>
  /** Aborts when the server cancels its request or the connection closes; the answer is then `'cancel'`. */
  signal: AbortSignal
  /** `'accept'` (with `content`), `'decline'` (the user said no) or `'cancel'` (dismissed without choosing). */
  action?: 'accept' | 'decline' | 'cancel'
  /** The user's answer, for `action: 'accept'`. Checked against `requestedSchema` before it is sent. */
  content?: Record<string, unknown>
}

/** Answers elicitations for one connection (the agent fires `mcp:elicitation` from here). */
export type McpElicitationHandler = (ctx: McpElicitationContext) => void | Promise<void>

type Schema = Record<string, unknown>

const ACTIONS = new Set(['accept', 'decline', 'cancel'])
let validator: AjvJsonSchemaValidator | undefined

function properties(schema: Schema): Record<string, Schema> {
  const props = schema.properties
  return props && typeof props === 'object' && !Array.isArray(props) ? props as Record<string, Schema> : {}
}

/** The `default` of every field that has one. */
export function elicitationDefaults(schema: Schema): Record<string, unknown> {
  const defaults: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(properties(schema))) {
    if (field && typeof field === 'object' && 'default' in field)
      defaults[name] = structuredClone(field.default)
  }
  return defaults
}

/** Problems of `content` against the requested schema (empty when it matches). */
function check(schema: Schema, content: Record<string, unknown>): string | undefined {
  validator ??= new AjvJsonSchemaValidator()
  const result = validator.getValidator<Record<string, unknown>>(schema)(content)
  return result.valid ? undefined : result.errorMessage ?? 'invalid'
}

/**
 * Ask the host, then turn its answer into the result the server receives.
 * A handler that throws, or an accepted answer that does not match the
 * requested schema, is reported to the server as a JSON-RPC error (the user
 * did not decline; the host failed). A handler that times out, or a request
 * the server cancelled, answers `'cancel'`.
 */
export async function answerElicitation(server: string, params: { message: string, requestedSchema: Schema }, signal: AbortSignal, handler: McpElicitationHandler): Promise<ElicitResult> {
  const schema = params.requestedSchema
  const defaults = elicitationDefaults(schema)
  const ctx: McpElicitationContext = { server, message: params.message, requestedSchema: schema, defaults: structuredClone(defaults), signal }
  try {
    await untilAborted((async () => handler(ctx))(), signal)
  }
  catch (error) {
    if (signal.aborted || error instanceof OperationTimeoutError)
      return { action: 'cancel' }
    throw new McpError(ErrorCode.InternalError, `the host could not answer the elicitation: ${error instanceof Error ? error.message : String(error)}`)
  }
  const action = ctx.action ?? 'decline'
  if (!ACTIONS.has(action))
    throw new McpError(ErrorCode.InternalError, `the host answered the elicitation with an unknown action ${JSON.stringify(action)}`)
  if (action !== 'accept')
    return { action }
  const given = ctx.content && typeof ctx.content === 'object' ? ctx.content : {}
  const content = Object.fromEntries(Object.entries({ ...defaults, ...given }).filter(([, value]) => value !== undefined))
  const problems = check(schema, content)
  if (problems)
    throw new McpError(ErrorCode.InvalidParams, `the answer to the elicitation does not match the requested schema: ${problems}`)
  return { action: 'accept', content: content as ElicitResult['content'] }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted)
    return Promise.reject(new Error('cancelled'))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('cancelled'))
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * An MCP client for one server. With `onElicitation` it announces
 * `elicitation: { form: {} }` and answers through it; without, it announces
 * no capabilities and declines an elicitation a server sends anyway.
 */
export function createMcpClient(info: { name: string, version: string }, server: string, onElicitation?: McpElicitationHandler): Client {
  const client = new Client(info, { capabilities: onElicitation ? { elicitation: { form: {} } } : {} })
  if (onElicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params as { message: string, requestedSchema?: Schema }
      return answerElicitation(server, { message: params.message, requestedSchema: params.requestedSchema ?? { type: 'object', properties: {} } }, extra.signal, onElicitation)
    })
  }
  else {
    client.fallbackRequestHandler = async (request) => {
      if (request.method === 'elicitation/create')
        return { action: 'decline' }
      throw new McpError(ErrorCode.MethodNotFound, 'Method not found')
    }
  }
  return client
}

const YES = /^(?:y|yes|true|1|accept|ok)$/i
const NO = /^(?:n|no|false|0|decline)$/i
const LIST_SEPARATOR = /\s*,\s*/

/** The choices of an enum field (single or multiple select) as `[value, label]`. */
function choices(field: Schema): Array<[string, string]> {
  const item = field.type === 'array' && field.items && typeof field.items === 'object' ? field.items as Schema : field
  const titled = (item.oneOf ?? item.anyOf) as Array<{ const?: unknown, title?: unknown }> | undefined
  if (Array.isArray(titled))
    return titled.filter(o => typeof o?.const === 'string').map(o => [o.const as string, typeof o.title === 'string' ? o.title : o.const as string])
  if (Array.isArray(item.enum)) {
    const names = Array.isArray(field.enumNames) ? field.enumNames : []
    return item.enum.map((value, i) => [String(value), typeof names[i] === 'string' ? names[i] as string : String(value)])
  }
  return []
}

/** Read one typed answer; what cannot be read is passed on as typed, and the schema check reports it. */
function parseAnswer(field: Schema, answer: string): unknown {
  const options = choices(field)
  const pick = (text: string) => options.find(([value, label]) => value === text || label.toLowerCase() === text.toLowerCase())?.[0] ?? text
  if (field.type === 'array')
    return answer.split(LIST_SEPARATOR).filter(Boolean).map(pick)
  if (options.length > 0)
    return pick(answer)
  if (field.type === 'boolean')
    return YES.test(answer) ? true : NO.test(answer) ? false : answer
  if (field.type === 'number' || field.type === 'integer') {
    const value = Number(answer)
    return answer !== '' && Number.isFinite(value) ? value : answer
  }
  return answer
}

function question(message: string, name: string, field: Schema, required: boolean, fallback: unknown): string {
  const label = typeof field.title === 'string' ? field.title : name
  const description = typeof field.description === 'string' ? ` (${field.description})` : ''
  const hint = fallback !== undefined
    ? ` Leave empty for ${JSON.stringify(fallback)}.`
    : required ? '' : ' Optional: leave empty to skip.'
  const list = field.type === 'array' ? ' Separate several answers with commas.' : ''
  return `${message}\n\n${label}${description}?${list}${hint}`
}

/**
 * Answer elicitations through the `ask_user` host callback: one question per
 * field, the enum and boolean choices offered as options, an empty answer
 * keeping the field's default. An empty answer to a required field without
 * a default declines; a form without fields asks for Accept or Decline.
 */
export function elicitThroughAskUser(askUser: AskUserCallback): McpElicitationHandler {
  return async (ctx) => {
    const fields = Object.entries(properties(ctx.requestedSchema))
    const required = new Set(Array.isArray(ctx.requestedSchema.required) ? ctx.requestedSchema.required as string[] : [])
    const ask = async (text: string, options?: string[]) => String(await askUser(text, { options, signal: ctx.signal }) ?? '').trim()
    if (fields.length === 0) {
      ctx.action = YES.test(await ask(ctx.message, ['Accept', 'Decline'])) ? 'accept' : 'decline'
      ctx.content = {}
      return
    }
    const content: Record<string, unknown> = {}
    for (const [name, field] of fields) {
      const options = field.type === 'boolean' ? ['yes', 'no'] : choices(field).map(([, label]) => label)
      const answer = await ask(question(ctx.message, name, field, required.has(name), ctx.defaults[name]), options.length > 0 ? options : undefined)
      if (answer === '') {
        if (required.has(name) && !(name in ctx.defaults)) {
          ctx.action = 'decline'
          return
        }
        continue
      }
      content[name] = parseAnswer(field, answer)
    }
    ctx.action = 'accept'
    ctx.content = content
  }
}
