/**
 * MCP elicitation (`elicitation/create`, form mode): a server asks the user
 * for a few values in the middle of a request. The client announces the
 * capability only when the host can answer; otherwise a server that asks
 * anyway gets a clean `decline` rather than "Method not found". This is the
 * client side; what a handler sees, and the `ask_user` bridge, are in
 * `elicitation-form.ts`, which the agent loads without the SDK.
 */

import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type { McpElicitationContext, McpElicitationHandler, Schema } from './elicitation-form'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ElicitRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { mergeObjects } from '../core/merge-objects'
import { OperationTimeoutError } from '../errors'
import { elicitationDefaults } from './elicitation-form'
import { serverSchemaValidator } from './schema-validator'

const ACTIONS = new Set(['accept', 'decline', 'cancel'])

/** Problems of `content` against the requested schema (empty when it matches). */
function check(schema: Schema, content: Record<string, unknown>): string | undefined {
  const result = serverSchemaValidator.getValidator<Record<string, unknown>>(schema as never)(content)
  if (!result.valid)
    return result.errorMessage ?? 'invalid'
  return formatProblem(schema, content)
}

// Fixed patterns whose parts cannot overlap, so V8 runs them in linear time; an email is also capped in length.
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/
const DATE = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:z|[+-]\d{2}:\d{2})$/i
/**
 * The string formats an elicitation form may ask for (the MCP spec names these four), checked on the
 * form's top-level fields, which is all a form has. Each test is linear in the value.
 */
const FORMATS: Record<string, (value: string) => boolean> = {
  'email': value => value.length <= 320 && EMAIL.test(value),
  'uri': value => URL.canParse(value),
  'date': value => DATE.test(value) && !Number.isNaN(Date.parse(value)),
  'date-time': value => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
}

function formatProblem(schema: Schema, content: Record<string, unknown>): string | undefined {
  const properties = (schema as { properties?: unknown }).properties
  if (!properties || typeof properties !== 'object')
    return undefined
  for (const [name, field] of Object.entries(properties as Record<string, unknown>)) {
    const format = (field as { format?: unknown } | null)?.format
    const value = content[name]
    const test = typeof format === 'string' && Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined
    if (test && typeof value === 'string' && !test(value))
      return `${name}: must be a valid ${format}`
  }
  return undefined
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
  const content = Object.fromEntries(Object.entries(mergeObjects(defaults, given)).filter(([, value]) => value !== undefined))
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

/** Elicitations of one server that may wait while another is answered; more are declined at once. */
export const MAX_WAITING_ELICITATIONS = 8

/**
 * Puts one server's elicitations to the host one at a time, in order. The
 * host shows each to a user, who answers one form at a time; a server that
 * sent a thousand at once had the handler (and an `ask_user` prompt) run a
 * thousand times side by side. A request that finds `MAX_WAITING_ELICITATIONS`
 * waiting is declined without asking, and one the server cancels while it
 * waits answers `cancel` without asking.
 */
function oneAtATime(): (signal: AbortSignal, answer: () => Promise<ElicitResult>) => Promise<ElicitResult> {
  let tail: Promise<unknown> = Promise.resolve()
  // The one being answered and those waiting behind it.
  let admitted = 0
  return async (signal, answer) => {
    if (admitted > MAX_WAITING_ELICITATIONS)
      return { action: 'decline' }
    admitted++
    const previous = tail
    const turn = (async () => {
      await previous
      return signal.aborted ? { action: 'cancel' as const } : answer()
    })().finally(() => admitted--)
    tail = turn.catch(() => {})
    return turn
  }
}

/**
 * An MCP client for one server. With `onElicitation` it announces
 * `elicitation: { form: {} }` and answers through it; without, it announces
 * no capabilities and declines an elicitation a server sends anyway.
 */
export function createMcpClient(info: { name: string, version: string }, server: string, onElicitation?: McpElicitationHandler): Client {
  // The server's schemas are checked by zidane's linear-time checker, not Ajv (see `schema-validator.ts`).
  const client = new Client(info, { capabilities: onElicitation ? { elicitation: { form: {} } } : {}, jsonSchemaValidator: serverSchemaValidator })
  if (onElicitation) {
    const inTurn = oneAtATime()
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params as { message: string, requestedSchema?: Schema }
      return inTurn(extra.signal, () => answerElicitation(server, { message: params.message, requestedSchema: params.requestedSchema ?? { type: 'object', properties: {} } }, extra.signal, onElicitation))
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
