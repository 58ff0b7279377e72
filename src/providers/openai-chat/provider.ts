/**
 * The shared body of every Chat Completions provider: a lazily built `openai`
 * client, one streamed request per `stream()` call, and errors classified for
 * the loop. Each factory (`openai`, `openaiCompat`, `openrouter`, `cerebras`)
 * only describes its API.
 */

import type { Provider, ProviderCapabilities, ProviderMeta, StreamCallbacks, StreamOptions, TurnResult } from '../types'
import type { ChatDecisionSettings } from './decisions'
import type { ChatDialect } from './dialect'
import OpenAI from 'openai'
import { clampTimerDelay } from '../../core/timer'
import { JSON_BODY_HEADERS, requestBodyBytes } from '../shared/body-json'
import { fetchWithCappedErrorBodies } from '../shared/capped-error-body'
import { endpointUrl } from '../transport-errors'
import { chatDecisions } from './decisions'
import { classifyChatError, missingApiKeyError } from './errors'
import { readChatTurn } from './sse-chunks'
import { buildChatRequest } from './wire'

/** Where the client sends a Chat Completions request, under the API root. */
const CHAT_PATH = '/chat/completions'

/** The body's lists whose items keep their wire objects from request to request (`./wire.ts`), so their JSON is remembered. */
const WIRE_LISTS = ['messages', 'tools']
const NOTHING_TRAILING = {}

export interface ChatClientSettings {
  providerName: string
  /** Resolved at the first request, so a key set after the provider was created is still found. */
  apiKey: () => string | undefined
  /** Whether a request may go out without a key (self-hosted servers). */
  keyless: boolean
  /** Told to the user when the key is missing. */
  missingKeyHint: string
  baseURL: () => string | undefined
  headers?: Record<string, string>
  organization?: string
  timeoutMs?: number
  /**
   * Let the SDK read `OPENAI_ORG_ID` / `OPENAI_PROJECT_ID` from the environment.
   * Only OpenAI itself: those values (and OpenAI admin keys) must never reach another vendor.
   */
  openaiEnvironment: boolean
}

/**
 * A getter that builds the client on first use. Retries are off (`maxRetries: 0`):
 * the agent loop retries itself, so hooks see every attempt and backoff follows
 * the run's policy. A missing key throws an `auth` error, before any request.
 */
export function lazyChatClient(settings: ChatClientSettings): () => OpenAI {
  let client: OpenAI | undefined
  return () => {
    if (client)
      return client
    const apiKey = settings.apiKey()
    if (!apiKey && !settings.keyless)
      throw missingApiKeyError(settings.providerName, settings.missingKeyHint)
    const vendorEnvironment = settings.openaiEnvironment ? {} : { organization: null, project: null }
    client = new OpenAI({
      // The SDK insists on a key; a keyless server gets a placeholder and no Authorization header at all.
      apiKey: apiKey || 'keyless',
      adminAPIKey: null,
      ...vendorEnvironment,
      ...(settings.organization ? { organization: settings.organization } : {}),
      baseURL: settings.baseURL(),
      maxRetries: 0,
      timeout: settings.timeoutMs === undefined ? undefined : clampTimerDelay(settings.timeoutMs),
      defaultHeaders: apiKey ? settings.headers : { Authorization: null, ...settings.headers },
      fetch: fetchWithCappedErrorBodies,
    })
    return client
  }
}

export interface ChatProviderConfig {
  meta: ProviderMeta
  capabilities: ProviderCapabilities
  dialect: ChatDialect
  client: () => OpenAI
  /** How decision calls go out on this API (`Provider.decisions`). Default: `response_format` JSON schema, no reasoning field. */
  decisions?: ChatDecisionSettings
}

/** A `Provider` over any Chat Completions API. */
export function chatCompletionsProvider(config: ChatProviderConfig): Provider {
  return {
    name: config.dialect.providerName,
    meta: config.meta,
    capabilities: config.capabilities,
    stream: (options, callbacks) => streamChatCompletion(config.client, options, callbacks, config.dialect),
    decisions: chatDecisions(config.client, config.dialect, config.meta.defaultModel, config.decisions),
  }
}

/**
 * One streamed turn: build the body (refusing unsupported content before
 * sending), stream it, classify failures.
 *
 * The raw response is taken (`asResponse()`) and its body read by
 * `readChatTurn`, which sees the `[DONE]` line the SDK's `Stream` drops:
 * that line tells a stream that ended on purpose without a `finish_reason`
 * from one cut off on the way (see `sse-chunks.ts`). Each chunk goes to the
 * turn's reader as soon as it is parsed, with no iterator between the two.
 * HTTP errors are still raised by the SDK before the body is read.
 */
export async function streamChatCompletion(
  client: () => OpenAI,
  options: StreamOptions,
  callbacks: StreamCallbacks,
  dialect: ChatDialect,
): Promise<TurnResult> {
  // The endpoint is named only in errors, so it is worked out only when one happens.
  let baseURL: string | undefined
  const classify = (error: unknown) => classifyChatError(error, { provider: dialect.providerName, signal: options.signal, url: endpointUrl(baseURL, CHAT_PATH) })
  if (options.signal.aborted)
    throw classify(options.signal.reason)
  const body = buildChatRequest(options, dialect)
  try {
    const api = client()
    baseURL = api.baseURL
    // The body as the SDK would write it, each message's JSON made and encoded once per run (`../shared/body-json.ts`),
    // sent through the client's own request path (what `chat.completions.create` calls): credentials, headers, errors.
    const bytes = requestBodyBytes(body, WIRE_LISTS, NOTHING_TRAILING)
    const response = await api.post(CHAT_PATH, { body: bytes, stream: true, signal: options.signal, headers: JSON_BODY_HEADERS }).asResponse()
    return await readChatTurn(response, callbacks, { model: options.model, providerName: dialect.providerName, usageFields: dialect.usageFields })
  }
  catch (error) {
    throw classify(error)
  }
}
