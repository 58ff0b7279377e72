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
import { schemaProblems } from './tools'

/** JSON-RPC "internal error": what a malformed answer becomes. */
const INTERNAL_ERROR = -32603

const TRAILING_CR = /\r$/

/** Read `transport`'s lines so that a malformed answer to a request fails that request (see above). */
export function answerMalformedResponses(transport: StdioClientTransport, server: string): void {
  const fields = transport as unknown as { _readBuffer?: unknown }
  if (fields._readBuffer !== undefined)
    fields._readBuffer = new AnswerReadBuffer(server)
}

/**
 * The SDK's `ReadBuffer` (same cap, same line splitting, same errors for a
 * line that is not JSON or not a message), except for malformed answers.
 */
class AnswerReadBuffer {
  private buffer: Buffer | undefined

  constructor(private readonly server: string) {}

  append(chunk: Buffer): void {
    if ((this.buffer?.length ?? 0) + chunk.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      this.clear()
      throw new Error(`ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`)
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk
  }

  readMessage(): JSONRPCMessage | null {
    const index = this.buffer?.indexOf('\n') ?? -1
    if (!this.buffer || index === -1)
      return null
    const line = this.buffer.toString('utf8', 0, index).replace(TRAILING_CR, '')
    this.buffer = this.buffer.subarray(index + 1)
    const value: unknown = JSON.parse(line)
    const checked = JSONRPCMessageSchema.safeParse(value)
    if (checked.success)
      return checked.data
    const id = answeredId(value)
    if (id === undefined)
      throw checked.error
    return { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `MCP server "${this.server}" sent a malformed answer to request ${JSON.stringify(id)}: ${answerProblems(value as object)}` } }
  }

  clear(): void {
    this.buffer = undefined
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
