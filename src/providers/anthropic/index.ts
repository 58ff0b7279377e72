/**
 * `zidane/providers/anthropic`: Claude through the Messages API, streamed.
 *
 * ```ts
 * import { anthropic } from 'zidane/providers/anthropic'
 * const provider = anthropic({ defaultModel: 'claude-opus-5-5' })
 * ```
 *
 * @module zidane/providers/anthropic
 */

import type { ClientOptions } from '@anthropic-ai/sdk'
import type { BetaContextManagementConfig } from '@anthropic-ai/sdk/resources/beta/messages'
import type { Provider, StreamCallbacks, StreamOptions, TurnResult } from '../types'
import type { AnthropicClient } from './client'
import type { AnthropicOAuthCredentials } from './oauth'
import { APIError } from '#anthropic-sdk/error'
import { mergeObjects } from '../../core/merge-objects'
import { pushAll } from '../../core/push-all'
import { clampTimerDelay } from '../../core/timer'
import { requestBodyBytes } from '../shared/body-json'
import { fetchWithCappedErrorBodies } from '../shared/capped-error-body'
import { STREAM_OPTION_DEFAULTS } from '../shared/stream-defaults'
import { endpointUrl } from '../transport-errors'
import { readAnthropicBody } from './body-events'
import { loadAnthropicClient, loadAnthropicSdk } from './client'
import { anthropicDecisions } from './decisions'
import { classifyAnthropicError, missingApiKeyError, PROVIDER_NAME } from './errors'
import { findAnthropicModel } from './models'
import { anthropicOAuthSession, OAUTH_BETA } from './oauth'
import { AnthropicTurnReader } from './stream'
import { buildAnthropicRequest } from './wire'

/** Options of the `anthropic()` provider. */
export interface AnthropicParams {
  /** Defaults to `ANTHROPIC_API_KEY`, read at the first request. */
  apiKey?: string | undefined
  /** Without `/v1`; defaults to `ANTHROPIC_BASE_URL`, then the public API. */
  baseURL?: string | undefined
  /** The model when a run names none. Default `claude-sonnet-5-5`. */
  defaultModel?: string
  /**
   * Retries inside the SDK. Default `0`: the agent loop retries itself, so that
   * hooks see every attempt and backoff follows the run's policy.
   */
  maxRetries?: number
  /** Request timeout in milliseconds (the SDK's default when unset). */
  timeoutMs?: number
  /** Extra headers for every request. `anthropic-beta` values are merged with the ones a request needs. */
  headers?: Record<string, string>
  /** Server-side context editing (`context_management`), sent with the context-management beta. */
  contextManagement?: BetaContextManagementConfig
  /**
   * A Claude subscription's OAuth credentials instead of an API key: sent as
   * a bearer token (with the OAuth beta), refreshed shortly before `expires`
   * and once on a 401, each refresh reported on the `oauth:refresh` hook.
   * `cacheTtl: '1h'` is sent as `'5m'` on this path. See docs/providers/anthropic.md.
   */
  oauth?: AnthropicOAuthCredentials
}

/** The signal of a wait nothing cancels (a decision's refresh, bounded by its own timeout). */
const NEVER_ABORTED = new AbortController().signal
/** The body's lists whose items keep their objects from request to request (`./wire.ts`), so their JSON is remembered. */
const WIRE_LISTS: readonly string[] = ['system', 'tools', 'messages']
/** What a turn's body adds after the built request: it streams. */
const STREAMED = Object.freeze({ stream: true })

/** The model a run uses when it names none. */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5-5'

/**
 * Create the Anthropic provider. Nothing is loaded, checked or connected
 * here: the SDK (the bulk of this entry's load time) loads through
 * `prepare()`, which `createAgent` starts and the loop awaits before a turn's
 * watchdogs start, so a short `providerStreamStartTimeoutMs` does not count
 * the load. The client is built on the first `stream()`, so a provider can be
 * created without a key, and a missing key fails that first turn with an
 * `auth` error.
 */
export function anthropic(params: AnthropicParams = {}): Provider {
  const defaultModel = params.defaultModel ?? DEFAULT_ANTHROPIC_MODEL
  const { beta: userBetas, rest: userHeaders } = splitBetaHeader(params.headers)
  const oauth = params.oauth === undefined ? undefined : anthropicOAuthSession(params.oauth)
  const extraBetas = oauth ? [...new Set([...userBetas, OAUTH_BETA])] : userBetas
  let client: Promise<AnthropicClient> | undefined
  // The bearer token `client` was built with: a refreshed token needs a new client.
  let clientToken: string | undefined
  // The SDK module, loading or loaded; `sdkLoaded` once it is, so `prepare` then costs nothing.
  let sdk: Promise<void> | undefined
  let sdkLoaded = false
  const prepare = (): Promise<void> | undefined => {
    if (sdkLoaded)
      return undefined
    if (!sdk) {
      const loading = loadAnthropicSdk().then(() => {
        sdkLoaded = true
      })
      sdk = loading
      // A failed load is tried again later; `stream()` reports it.
      loading.catch(() => {
        if (sdk === loading)
          sdk = undefined
      })
    }
    return sdk
  }

  // Synchronous, so `canAnswer` can tell at once whether a client would build.
  const clientOptions = (): ClientOptions => {
    const apiKey = oauth ? null : params.apiKey ?? process.env.ANTHROPIC_API_KEY
    if (!oauth && !apiKey)
      throw missingApiKeyError()
    return {
      apiKey,
      // With OAuth the token is the bearer; without, a key given here wins and no token is picked up from the environment.
      authToken: oauth ? oauth.access() : null,
      baseURL: params.baseURL ?? process.env.ANTHROPIC_BASE_URL ?? undefined,
      maxRetries: params.maxRetries ?? 0,
      timeout: params.timeoutMs === undefined ? undefined : clampTimerDelay(params.timeoutMs),
      defaultHeaders: userHeaders,
      fetch: fetchWithCappedErrorBodies,
    }
  }
  const getClient = (): Promise<AnthropicClient> => {
    if (client && clientToken === oauth?.access())
      return client
    const settings = clientOptions()
    clientToken = oauth?.access()
    const building = loadAnthropicClient(settings)
    client = building
    // A failed load is retried by the next request rather than cached.
    building.catch(() => {
      if (client === building)
        client = undefined
    })
    return building
  }

  async function stream(options: StreamOptions, callbacks: StreamCallbacks): Promise<TurnResult> {
    if (options.signal.aborted)
      throw classifyAnthropicError(options.signal.reason, options.signal)
    // The extended cache TTL is verified with API keys only; an unaccepted beta would fail every OAuth request.
    const request = oauth && options.cacheTtl === '1h' ? mergeObjects(options, { cacheTtl: '5m' as const }) : options
    const { body, betas } = buildAnthropicRequest(request, { contextManagement: params.contextManagement })
    const allBetas = extraBetas.length === 0 ? betas : [...new Set([...extraBetas, ...betas])]
    // The endpoint is named only in errors, so it is worked out only when one happens.
    let api: AnthropicClient | undefined
    const headers = allBetas.length > 0 ? { 'anthropic-beta': allBetas.join(',') } : undefined
    try {
      // The body as the SDK would write it, each message's JSON made and encoded once per run (`../shared/body-json.ts`).
      const bytes = requestBodyBytes(body, WIRE_LISTS, STREAMED)
      const send = (client: AnthropicClient) => client.streamMessages(bytes, options.signal, headers)
      if (oauth) {
        await oauth.fresh(options.signal)
        await reportRefreshes(callbacks)
      }
      const used = oauth?.access()
      api = await getClient()
      // The raw response: HTTP errors are still raised by the SDK, the body is read by `readAnthropicBody`.
      let response: Response
      try {
        response = await send(api)
      }
      catch (error) {
        // A token the API refused although it had not expired (revoked, clock skew): one refresh, one retry.
        if (!oauth || used === undefined || !(error instanceof APIError) || error.status !== 401)
          throw error
        await oauth.afterRejection(used, options.signal)
        await reportRefreshes(callbacks)
        api = await getClient()
        response = await send(api)
      }
      const turn = new AnthropicTurnReader(callbacks, { model: options.model, cacheTtl: request.cacheTtl ?? STREAM_OPTION_DEFAULTS.cacheTtl })
      await readAnthropicBody(response, turn)
      return turn.finish()
    }
    catch (error) {
      throw classifyAnthropicError(error, options.signal, api && endpointUrl(api.baseURL, '/v1/messages'))
    }
  }

  /** Hand the refreshes made so far to the loop (`oauth:refresh`); without a listener they wait for a call that has one. */
  async function reportRefreshes(callbacks: StreamCallbacks): Promise<void> {
    if (!oauth || !callbacks.onOAuthRefresh)
      return
    for (const report of oauth.takeReports()) await callbacks.onOAuthRefresh(report)
  }

  // A decision refreshes an expiring token too (bounded by the refresh's own timeout); its refresh is reported with the next turn.
  const decisionClient = oauth ? () => oauth.fresh(NEVER_ABORTED).then(getClient) : getClient

  return {
    name: PROVIDER_NAME,
    meta: { defaultModel, contextWindow: findAnthropicModel(defaultModel)?.contextWindow },
    capabilities: {
      images: true,
      documents: true,
      toolResultMedia: true,
      thinking: true,
      promptCache: true,
      adaptiveBudgetIsEnvelope: true,
    },
    stream,
    prepare,
    decisions: anthropicDecisions({ client: decisionClient, settings: clientOptions }, defaultModel, extraBetas),
  }
}

/** Pull `anthropic-beta` (any casing) out of user headers so it can be merged instead of overwritten. */
function splitBetaHeader(headers: Record<string, string> | undefined): { beta: string[], rest: Record<string, string> } {
  const rest: Record<string, string> = {}
  const beta: string[] = []
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === 'anthropic-beta')
      pushAll(beta, value.split(',').map(part => part.trim()).filter(Boolean))
    else
      rest[name] = value
  }
  return { beta, rest }
}

export { parseRetryAfter } from '../retry-after'
export { classifyAnthropicError } from './errors'
export { ANTHROPIC_EFFORTS, anthropicTurnCost, DEFAULT_MAX_OUTPUT_TOKENS, findAnthropicModel } from './models'
export type { AnthropicEffort, AnthropicModelInfo, AnthropicPrice, AnthropicPriceRates, AnthropicTokenCounts } from './models'
export { ANTHROPIC_OAUTH_CLIENT_ID, ANTHROPIC_OAUTH_TOKEN_URL, MAX_TOKEN_RESPONSE_BYTES, OAUTH_BETA, OAUTH_REFRESH_MARGIN_MS, OAUTH_REFRESH_TIMEOUT_MS } from './oauth'
export type { AnthropicOAuthCredentials } from './oauth'
export { anthropicFinishReason, consumeAnthropicStream } from './stream'
export { anthropicThinkingFields, THINKING_BUDGETS } from './thinking'
export type { ThinkingRequestFields } from './thinking'
export { buildAnthropicRequest } from './wire'
export type { AnthropicRequest, AnthropicRequestBody, AnthropicRequestInput, AnthropicRequestSettings } from './wire'
export { anthropicToolUseId } from './wire-content'
