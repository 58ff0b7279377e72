import type { ToolResultContent } from '../core/content'
import type { Timer } from '../core/timer'
import type { ToolDef, ToolOutput } from '../tools/types'
import type { McpToolSchema } from './types'
import { nestsDeeperThan } from '../core/json-depth'
import { startTimer } from '../core/timer'
import { OperationTimeoutError } from '../errors'
import { untrustedSchema } from '../tools/json-schema'

/** Default bound on one `tools/call`, in milliseconds. */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000

/**
 * How deeply a result's `structuredContent` (or a legacy `toolResult`) may
 * nest to be written as JSON text. `JSON.stringify` recurses, and a value a
 * few thousand levels deep overflows the stack; real results nest a few levels.
 */
export const MAX_MCP_RESULT_DEPTH = 200

/** Schema problems of a result named in the error before the rest are counted. */
const MAX_LISTED_ISSUES = 5
/** Characters kept of each listed problem's path and of its message. */
const MAX_ISSUE_CHARS = 200

/** A `tools/call` whose result carried `isError: true`. Thrown so the loop records an error result. */
export class McpToolError extends Error {
  override name = 'McpToolError'
  readonly server: string
  readonly tool: string
  /** The mapped content of the error result. */
  readonly content: ToolResultContent[]
  constructor(server: string, tool: string, message: string, content: ToolResultContent[]) {
    super(message)
    this.server = server
    this.tool = tool
    this.content = content
  }
}

/** Raw result of `tools/call`, loosely typed: servers send more than the schema names. */
export interface McpCallResult {
  content?: unknown[]
  structuredContent?: unknown
  isError?: boolean
  /** Pre-2024-11 servers answer with `toolResult` instead of `content`. */
  toolResult?: unknown
}

/** What the call may do with the tool's own timer. */
export interface McpCallControl {
  /** Stop the timeout clock (while the user authorizes access); the returned function restarts it with the time that was left. */
  pauseTimeout: () => () => void
}

/** What a tool needs from its server: make one call, bounded by `signal`. */
export type McpCallFn = (tool: string, args: Record<string, unknown>, signal: AbortSignal, control?: McpCallControl) => Promise<McpCallResult>

type Block = Record<string, unknown>

const asError = (value: unknown) => value instanceof Error ? value : new Error(String(value))
const str = (value: unknown) => typeof value === 'string' ? value : undefined

function mapResource(resource: Block): ToolResultContent | undefined {
  const mediaType = str(resource.mimeType)
  const uri = str(resource.uri)
  const text = str(resource.text)
  if (text !== undefined)
    return { type: 'text', text }
  const blob = str(resource.blob)
  if (blob === undefined)
    return undefined
  if (mediaType?.startsWith('image/'))
    return { type: 'image', data: blob, mediaType, ...(uri ? { name: uri } : {}) }
  return { type: 'document', data: blob, encoding: 'base64', mediaType: mediaType ?? 'application/octet-stream', ...(uri ? { name: uri } : {}) }
}

function mapBlock(block: Block): ToolResultContent | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '' }
    case 'image':
      return { type: 'image', data: str(block.data) ?? '', mediaType: str(block.mimeType) ?? 'image/png' }
    case 'audio':
      return { type: 'audio', data: str(block.data) ?? '', mediaType: str(block.mimeType) ?? 'audio/wav' }
    case 'resource':
      return block.resource && typeof block.resource === 'object' ? mapResource(block.resource as Block) : undefined
    case 'resource_link': {
      // The model cannot follow a link by itself; describing it keeps the reference usable in text.
      const name = str(block.name) ?? str(block.uri) ?? 'resource'
      const description = str(block.description)
      return { type: 'text', text: `Resource link: ${name} (${str(block.uri) ?? ''})${description ? ` - ${description}` : ''}` }
    }
    default:
      return { type: 'text', text: jsonText(block, 'a content block') }
  }
}

/**
 * `value` as JSON text, refused (a `TypeError`) when it nests past
 * `MAX_MCP_RESULT_DEPTH`: the check walks it without recursion, so a value
 * thousands of levels deep is refused before `JSON.stringify` could overflow.
 */
function jsonText(value: unknown, what: string): string {
  if (nestsDeeperThan(value, MAX_MCP_RESULT_DEPTH))
    throw new TypeError(`MCP tool result: ${what} nests more than ${MAX_MCP_RESULT_DEPTH} levels deep; it was not read`)
  return JSON.stringify(value)
}

/** Map a `tools/call` result to zidane tool-result blocks. */
export function mapCallResult(result: McpCallResult): ToolResultContent[] {
  const blocks: ToolResultContent[] = []
  for (const item of result.content ?? []) {
    if (item && typeof item === 'object') {
      const mapped = mapBlock(item as Block)
      if (mapped)
        blocks.push(mapped)
    }
  }
  if (result.content === undefined && result.toolResult !== undefined)
    blocks.push({ type: 'text', text: typeof result.toolResult === 'string' ? result.toolResult : jsonText(result.toolResult, 'toolResult') })
  // Structured output is usually mirrored in text; only surface it when the text is missing.
  if (result.structuredContent !== undefined && !blocks.some(b => b.type === 'text'))
    blocks.push({ type: 'text', text: jsonText(result.structuredContent, 'structuredContent') })
  return blocks
}

/** Plain text when every block is text (the cheapest form for every provider), blocks otherwise. */
export function toToolOutput(blocks: ToolResultContent[]): ToolOutput {
  if (blocks.length === 0)
    return '(no content)'
  if (blocks.every(b => b.type === 'text'))
    return blocks.map(b => (b as { text: string }).text).join('\n')
  return blocks
}

/**
 * The SDK checks every result against the MCP schema and rejects one that
 * does not match with zod's error. That error's `message` is each problem as
 * indented JSON, built when first read, and a union lists every alternative:
 * a 4 MB result of 200,000 blocks of an unknown type makes a message of
 * gigabytes, or a `RangeError` when it is read, which no error result can
 * carry. So such an error is replaced by one naming the first few problems
 * (path and message, each cut short) and counting the rest; its own `message`
 * is never read. Any other error is returned as it is.
 */
function boundedCallError(error: unknown, server: string, tool: string): unknown {
  const issues = typeof error === 'object' && error !== null ? (error as { issues?: unknown }).issues : undefined
  if (!Array.isArray(issues))
    return error
  return new TypeError(`MCP server "${server}" answered tools/call of "${tool}" with a result that does not match the MCP schema (${issues.length} problem${issues.length === 1 ? '' : 's'}): ${schemaProblems(issues, '(result)')}`)
}

/**
 * A schema error's issues as short text: the first few (path and message,
 * each cut short), then how many more. Never reads the error's `message`.
 */
export function schemaProblems(issues: unknown[], root: string): string {
  const listed: string[] = []
  for (const issue of issues.slice(0, MAX_LISTED_ISSUES)) {
    const { path, message } = (issue ?? {}) as { path?: unknown, message?: unknown }
    const where = Array.isArray(path) && path.length > 0 ? path.slice(0, 20).map(part => String(part)).join('.') : root
    listed.push(`${cutText(where)}: ${cutText(typeof message === 'string' ? message : 'invalid')}`)
  }
  const rest = issues.length - listed.length
  return `${listed.join('; ')}${rest > 0 ? `; and ${rest} more` : ''}`
}

/** `text` cut to `MAX_ISSUE_CHARS` (or `max`), marked with `…` when cut. */
export function cutText(text: string, max = MAX_ISSUE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

function errorMessage(blocks: ToolResultContent[]): string {
  const text = blocks.filter(b => b.type === 'text').map(b => (b as { text: string }).text).join('\n')
  return text || 'MCP tool reported an error'
}

/** Normalize a server's input schema to an object schema the providers accept. */
function toInputSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!schema || typeof schema !== 'object')
    return { type: 'object', properties: {} }
  return schema.type === undefined ? { type: 'object', ...schema } : { ...schema }
}

/** A timeout (`0`: none) whose clock can be stopped and restarted; pauses nest. */
function pausableTimeout(timeoutMs: number, onTimeout: () => void) {
  let left = timeoutMs
  let startedAt = Date.now()
  let handle: Timer | undefined
  let paused = 0
  const start = () => {
    startedAt = Date.now()
    handle = startTimer(left, onTimeout)
  }
  if (timeoutMs > 0)
    start()
  return {
    pause: () => {
      if (timeoutMs > 0 && paused++ === 0 && handle) {
        handle.clear()
        handle = undefined
        left -= Date.now() - startedAt
      }
      let resumed = false
      return () => {
        if (resumed || timeoutMs <= 0)
          return
        resumed = true
        if (--paused === 0 && left !== -Infinity)
          start()
      }
    },
    clear: () => {
      handle?.clear()
      handle = undefined
      left = -Infinity
    },
  }
}

/** What `mcpToolDef` needs to turn one server tool into a `ToolDef`. */
export interface McpToolDefOptions {
  server: string
  canonicalName: string
  schema: McpToolSchema
  timeoutMs: number
  call: McpCallFn
}

/** One MCP tool as a zidane `ToolDef` under its canonical name. */
export function createMcpToolDef(options: McpToolDefOptions): ToolDef<Record<string, unknown>> {
  const { server, schema, timeoutMs, call } = options
  const readOnly = schema.annotations?.readOnlyHint === true
  return {
    spec: {
      name: options.canonicalName,
      description: schema.description ?? schema.title ?? '',
      // The server wrote it: its patterns never run on V8's backtracking engine (src/tools/json-schema.ts).
      inputSchema: untrustedSchema(toInputSchema(schema.inputSchema)),
    },
    // Read-only tools touch no shared state, so the loop may run them side by side.
    isConcurrencySafe: readOnly,
    mcp: { server, tool: schema.name },
    async execute(input, ctx) {
      const timer = new AbortController()
      const clock = pausableTimeout(timeoutMs, () => timer.abort(new OperationTimeoutError(`MCP tool ${server}/${schema.name}`, timeoutMs)))
      const signal = AbortSignal.any([ctx.signal, timer.signal])
      let result: McpCallResult
      try {
        result = await call(schema.name, input ?? {}, signal, { pauseTimeout: clock.pause })
      }
      catch (error) {
        // The SDK wraps an abort reason in its own error; give callers the real cause.
        if (timer.signal.aborted)
          throw asError(timer.signal.reason)
        if (ctx.signal.aborted && ctx.signal.reason instanceof Error)
          throw ctx.signal.reason
        throw boundedCallError(error, server, schema.name)
      }
      finally {
        clock.clear()
      }
      const blocks = mapCallResult(result)
      if (result.isError)
        throw new McpToolError(server, schema.name, errorMessage(blocks), blocks)
      return toToolOutput(blocks)
    },
  }
}
