/**
 * The SDK-free half of MCP elicitation: what a handler sees and answers, and
 * the bridge that puts a server's form to the user through the `ask_user`
 * callback, one question per field. Kept apart from the client wiring so the
 * agent can build the bridge without loading the MCP SDK.
 */

import type { AskUserCallback } from '../tools/ask-user-callbacks'

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

/** A JSON Schema object, as a server sends it. */
export type Schema = Record<string, unknown>

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
