/**
 * A local stand-in for the Anthropic Messages API: a real `node:http` server
 * on 127.0.0.1 that answers `POST /v1/messages` with scripted SSE streams or
 * errors, and records every request. Point the provider at it with
 * `anthropic({ baseURL: fake.url, apiKey: 'test-key' })`.
 *
 * Free of test-runner imports, so a benchmark can run it in a child process.
 */

import type { ServerResponse } from 'node:http'
import type { PromptCache } from './prompt-cache'
import type { RecordedRequest, ScriptedServer } from './scripted-server'
import type { ScriptedAnthropicTurn, SseEvent } from './sse'
import { startScriptedServer, writeEventStream, writeJsonError } from './scripted-server'
import { anthropicEvents, anthropicMessage, sseFrame } from './sse'

export type { RecordedRequest } from './scripted-server'
export { anthropicSse } from './sse'

export type { ScriptedAnthropicTurn } from './sse'

export type FakeResponse
  = | { type: 'turn', turn: ScriptedAnthropicTurn, delayMs?: number }
  /** A JSON error. `body` defaults to Anthropic's `{ type: 'error', error: { type, message } }` for the status. */
    | { type: 'error', status: number, headers?: Record<string, string>, body?: unknown }
  /** `message_start` and the turn's first content block, then an `event: error`, then the response ends. */
    | { type: 'mid-stream-error', turn: ScriptedAnthropicTurn, error: { type: string, message: string } }
  /** Accepts the request and never answers. */
    | { type: 'stall-before-headers' }
  /** Sends the first `events` SSE frames of the turn (pings included), then goes silent with the connection open. */
    | { type: 'stall-after', turn: ScriptedAnthropicTurn, events: number }
  /** Any event sequence, for shapes a scripted turn cannot express (server tools, odd orderings). */
    | { type: 'sse', events: SseEvent[] }

/** The server; `url` is the base URL without `/v1`, as the Anthropic SDK expects. */
export type FakeAnthropic = ScriptedServer<FakeResponse>

export interface FakeAnthropicOptions {
  /** Answers requests once the queue is empty. Without it an empty queue answers 500. */
  fallback?: (request: RecordedRequest) => FakeResponse
  /**
   * Simulate the prompt cache (`./prompt-cache`): every scripted turn then
   * reports the input, cache-read and cache-write tokens the cache says.
   */
  promptCache?: PromptCache
}

const ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  return startScriptedServer<FakeResponse>({
    name: 'fake-anthropic',
    routes: request => request.method === 'POST' && request.path.startsWith('/v1/messages'),
    fallback: options.fallback,
    writeError: (res, status, message) => writeJsonError(res, status, errorBody(status, message)),
    respond: (res, response, request, later) => respond(res, withCache(response, request, options.promptCache), request, later),
  })
}

/** A scripted turn with the usage the simulated cache reports for this request. */
function withCache(response: FakeResponse, request: RecordedRequest, cache: PromptCache | undefined): FakeResponse {
  if (!cache || response.type !== 'turn')
    return response
  const { usage } = cache.account(request.body)
  return { ...response, turn: { ...response.turn, usage: { ...response.turn.usage, ...usage } } }
}

function respond(res: ServerResponse, response: FakeResponse, request: RecordedRequest, later: (ms: number, send: () => void) => void): void {
  const model = typeof request.body?.model === 'string' ? request.body.model : undefined
  switch (response.type) {
    case 'turn':
      // A request that does not ask for a stream gets the whole Message as JSON, as the API answers it.
      if (request.body?.stream !== true)
        later(response.delayMs ?? 0, () => writeJson(res, anthropicMessage(response.turn, undefined, model)))
      else
        later(response.delayMs ?? 0, () => writeEvents(res, anthropicEvents(response.turn, undefined, model), true))
      return
    case 'error':
      writeJsonError(res, response.status, response.body ?? errorBody(response.status, `fake-anthropic: scripted ${response.status}`), response.headers)
      return
    case 'mid-stream-error': {
      const events = anthropicEvents(response.turn, undefined, model)
      const firstBlockEnd = events.findIndex(event => event.event === 'content_block_stop')
      const head = firstBlockEnd >= 0 ? events.slice(0, firstBlockEnd + 1) : events.slice(0, 1)
      writeEvents(res, [...head, { event: 'error', data: { type: 'error', error: response.error } }], true)
      return
    }
    case 'stall-before-headers':
      return
    case 'stall-after':
      writeEvents(res, anthropicEvents(response.turn, undefined, model).slice(0, response.events), false)
      return
    case 'sse':
      writeEvents(res, response.events, true)
  }
}

function writeEvents(res: ServerResponse, events: SseEvent[], end: boolean): void {
  writeEventStream(res, events.map(sseFrame), end, { 'request-id': 'req_fake' })
}

function writeJson(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake' })
  res.end(JSON.stringify(body))
}

function errorBody(status: number, message: string): unknown {
  return { type: 'error', error: { type: ERROR_TYPE_BY_STATUS[status] ?? 'api_error', message } }
}
