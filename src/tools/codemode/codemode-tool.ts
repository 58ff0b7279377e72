import type { ResolvedCodemode } from '../../knobs/codemode-knobs'
import type { ToolContext, ToolDef, ToolOutput } from '../types'
import type { CodemodeEntry } from './catalog'
import type { SandboxAnswer, SandboxCall } from './sandbox'
import { searchCatalog } from '../tool-search'
import { NestedCallOrder } from './call-order'
import { CODEMODE_TOOL_NAME } from './catalog'
import { formatScriptResult } from './output'
import { runScript, SANDBOX_LIMITS } from './sandbox'

/** What one run's `codemode` tool is built from. */
export interface CodemodeToolOptions {
  readonly settings: ResolvedCodemode
  /** The tools scripts can call. */
  readonly catalog: readonly CodemodeEntry[]
  readonly description: string
  /** Load a lazily disclosed tool (by canonical name) so a nested call of it is not refused. */
  readonly load: (name: string) => void
}

/** Matches a script's search returns when it gives no limit, and at most. */
const SEARCH_LIMITS = Object.freeze({ default: 10, max: 50 })
/** Characters of one nested result handed to a script. */
const MAX_RESULT_CHARS = 4_000_000

interface CodemodeInput {
  code: string
}

/**
 * The `codemode` tool: runs the model's script in a fresh sandbox, answers
 * its nested calls through `ctx.callTool` (so each takes a model call's
 * path: gates, validation, hooks, budgets, guards, transforms), and returns
 * what the script printed and returned.
 */
export function createCodemodeTool(options: CodemodeToolOptions): ToolDef<CodemodeInput> {
  const { settings, catalog } = options
  const names = catalog.map(entry => entry.wireName)
  const byName = new Map<string, CodemodeEntry>()
  for (const entry of catalog) {
    byName.set(entry.name, entry)
    byName.set(entry.wireName, entry)
  }

  const search = (call: SandboxCall): SandboxAnswer => {
    const args = parseObject(call.input)
    const query = typeof args.query === 'string' ? args.query : ''
    const wanted = typeof args.limit === 'number' && Number.isFinite(args.limit) ? Math.floor(args.limit) : SEARCH_LIMITS.default
    const found = searchCatalog(catalog, query, Math.min(Math.max(1, wanted), SEARCH_LIMITS.max))
    return { ok: true, value: JSON.stringify(found.map(entry => ({ name: entry.wireName, description: entry.description, ...(entry.server ? { server: entry.server } : {}) }))) }
  }

  const describe = (call: SandboxCall): SandboxAnswer => {
    const entry = byName.get(call.name)
    if (!entry)
      return { ok: false, message: `There is no tool named "${call.name}"; searchTools() finds tools.`, tool: call.name, blocked: true }
    return { ok: true, value: JSON.stringify({ name: entry.wireName, description: entry.description, inputSchema: entry.inputSchema, ...(entry.server ? { server: entry.server } : {}) }) }
  }

  const answer = async (call: SandboxCall, ctx: ToolContext, order: NestedCallOrder): Promise<SandboxAnswer> => {
    if (call.kind === 'search')
      return search(call)
    if (call.kind === 'describe')
      return describe(call)
    let input: unknown = {}
    if (call.input !== '') {
      try {
        input = JSON.parse(call.input)
      }
      catch {
        input = undefined
      }
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      return { ok: false, message: `The arguments of ${call.name} must be an object.`, tool: call.name, blocked: true }
    const entry = byName.get(call.name)
    if (entry?.deferred)
      options.load(entry.name)
    if (settings.streamProgress)
      ctx.progress({ kind: 'call', tool: call.name, ...(call.line === undefined ? {} : { line: call.line }) })
    const args = input as Record<string, unknown>
    const result = await order.run(isSafe(entry, args), () => ctx.callTool(call.name, args, { signal: call.signal, ...(call.line === undefined ? {} : { line: call.line }) }))
    const text = textOf(result.output)
    if (result.isError)
      return { ok: false, message: text, tool: result.name, blocked: result.blocked }
    if (text.length > MAX_RESULT_CHARS)
      return { ok: false, message: `The result of ${result.name} is ${text.length} characters, more than a script may receive (${MAX_RESULT_CHARS}).`, tool: result.name, blocked: false }
    return { ok: true, value: valueText(text) }
  }

  return {
    spec: {
      name: CODEMODE_TOOL_NAME,
      description: options.description,
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'string', description: 'The body of an async JavaScript function.' } },
        required: ['code'],
        additionalProperties: false,
      },
    },
    async execute(input, ctx): Promise<ToolOutput> {
      // Only the model starts a script. One started from a script (`callTool('codemode')`, or through an envelope)
      // keeps its parent's worker busy while it waits on its own: eight such levels held every worker of the pool,
      // and every codemode call in the process then waited for its time limit.
      if (ctx.parentToolCallId !== undefined)
        throw new Error(`${CODEMODE_TOOL_NAME} was not run: a script cannot start another script (it was called by call ${ctx.parentToolCallId}). Call the tools it needs directly.`)
      if (input.code.length > SANDBOX_LIMITS.maxCodeChars)
        throw new RangeError(`The script is ${input.code.length} characters; at most ${SANDBOX_LIMITS.maxCodeChars} are run.`)
      const order = new NestedCallOrder()
      const outcome = await runScript({
        code: input.code,
        names,
        timeoutMs: settings.timeoutMs,
        memoryLimitBytes: settings.memoryLimitBytes,
        signal: ctx.signal,
        onCall: call => answer(call, ctx, order),
        ...(settings.streamProgress ? { onPrint: (text: string, line: number | undefined) => ctx.progress({ kind: 'print', text, ...(line === undefined ? {} : { line }) }) } : {}),
      })
      const result = formatScriptResult(outcome, {
        timeoutMs: settings.timeoutMs,
        memoryLimitBytes: settings.memoryLimitBytes,
        maxPrintChars: SANDBOX_LIMITS.script.maxPrintChars,
        maxValueChars: SANDBOX_LIMITS.script.maxValueChars,
      })
      if (result.isError)
        throw new CodemodeScriptError(result.output)
      return result.output
    },
  }
}

/** A script that failed: its message is the whole result the model reads (printed lines, then the error). */
export class CodemodeScriptError extends Error {
  override name = 'CodemodeScriptError'
}

/** Whether a call may run next to others: the tool says so (an unknown tool, or one that does not say, runs alone). */
function isSafe(entry: CodemodeEntry | undefined, input: Record<string, unknown>): boolean {
  const flag = entry?.concurrencySafe
  if (typeof flag !== 'function')
    return flag === true
  try {
    return flag(input) === true
  }
  catch {
    return false
  }
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}
  }
  catch {
    return {}
  }
}

/** The text parts of a result, joined; media is named, not passed (a script cannot use bytes it cannot see). */
function textOf(output: ToolOutput): string {
  if (typeof output === 'string')
    return output
  return output.map(part => part.type === 'text' ? part.text : `[${part.type} omitted]`).join('\n')
}

/** JSON text for the script: the parsed value when the result is a JSON object or array, else the text itself. */
function valueText(text: string): string {
  const first = text.trimStart()[0]
  if (first === '{' || first === '[') {
    try {
      return JSON.stringify(JSON.parse(text))
    }
    catch {}
  }
  return JSON.stringify(text)
}
