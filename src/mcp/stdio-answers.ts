/**
 * Malformed answers from a stdio server, delivered as errors of their calls.
 *
 * The SDK's stdio transport checks each line against the JSON-RPC schema and
 * drops one that fails (reporting it to an `onerror` nobody reads). An answer
 * to a pending request that is malformed (`"result": null`, an error whose
 * `code` is a string) was dropped with it, and the call waited out the whole
 * `toolTimeout`. Here such an answer becomes a JSON-RPC error for its id,
 * naming what was wrong, as an answer cut at its size cap does over HTTP
 * (transports.ts). Other malformed lines are dropped as before.
 *
 * The SDK reads lines through the `ReadBuffer` in the transport's private
 * `_readBuffer` field, which is replaced by one that reads the same way. If a
 * later SDK release renames the field, the replacement is simply never used:
 * malformed answers are dropped again (test/mcp/hostile-servers.test.ts would
 * say so).
 */

import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js'
import { JSONRPCErrorResponseSchema, JSONRPCMessageSchema, JSONRPCResultResponseSchema } from '@modelcontextprotocol/sdk/types.js'
import { truncateText } from '../text/truncate'
import { schemaProblems } from './tools'

/** JSON-RPC "internal error": what a malformed answer becomes. */
const INTERNAL_ERROR = -32603

const TRAILING_CR = /\r$/
const NEWLINE = 0x0A

/** Read `transport`'s lines so that a malformed answer to a request fails that request (see above). */
export function answerMalformedResponses(transport: StdioClientTransport, server: string): void {
  const fields = transport as unknown as { _readBuffer?: unknown }
  if (fields._readBuffer !== undefined)
    fields._readBuffer = new AnswerReadBuffer(server)
}

/**
 * The SDK's `ReadBuffer` (same cap, same line splitting, same errors for a
 * line that is not JSON or not a message), except for malformed answers, and
 * linear: each byte is searched for a line end once, and a line coming in
 * many pieces is joined once (the SDK's joins and searches its whole buffer
 * again on every piece, quadratic in a long line).
 */
class AnswerReadBuffer {
  /** Pieces of the line not yet ended, and their bytes. */
  private partial: Buffer[] = []
  private partialBytes = 0
  /** Whole lines not read yet, from `next` on. */
  private lines: Buffer[] = []
  private next = 0

  constructor(private readonly server: string) {}

  append(chunk: Buffer): void {
    let from = 0
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, from)) {
      this.partial.push(chunk.subarray(from, end))
      this.lines.push(this.partial.length === 1 ? this.partial[0]! : Buffer.concat(this.partial))
      this.partial = []
      this.partialBytes = 0
      from = end + 1
    }
    if (from === chunk.length)
      return
    if (this.partialBytes + chunk.length - from > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      this.clear()
      throw new Error(`ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`)
    }
    this.partial.push(chunk.subarray(from))
    this.partialBytes += chunk.length - from
  }

  readMessage(): JSONRPCMessage | null {
    if (this.next === this.lines.length) {
      this.lines = []
      this.next = 0
      return null
    }
    const line = this.lines[this.next++]!.toString('utf8').replace(TRAILING_CR, '')
    const value: unknown = JSON.parse(line)
    const checked = JSONRPCMessageSchema.safeParse(value)
    if (checked.success)
      return checked.data
    const id = answeredId(value)
    if (id === undefined)
      throw checked.error
    return { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `MCP server "${this.server}" sent a malformed answer to request ${describeId(id)}: ${answerProblems(value as object)}` } }
  }

  clear(): void {
    this.partial = []
    this.partialBytes = 0
    this.lines = []
    this.next = 0
  }
}

/** The id a line answers: an object with a string or number `id`, no `method`, and a `result` or an `error`. */
function answeredId(value: unknown): string | number | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.hasOwn(value, 'method'))
    return undefined
  const { id } = value as { id?: unknown }
  if ((typeof id !== 'string' && typeof id !== 'number') || !(Object.hasOwn(value, 'result') || Object.hasOwn(value, 'error')))
    return undefined
  return id
}

/** What is wrong with an answer, checked as the kind of answer it claims to be rather than as any message. */
function answerProblems(value: object): string {
  const schema = Object.hasOwn(value, 'error') ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema
  const checked = schema.safeParse(value)
  return checked.success ? 'it matches no JSON-RPC answer' : schemaProblems(checked.error.issues, 'answer')
}

/** An id as JSON, cut short: it is the server's, and may be a megabyte long. */
function describeId(id: string | number): string {
  const text = JSON.stringify(id)
  return text.length > 80 ? `${truncateText(text, 80)}…` : text
}
