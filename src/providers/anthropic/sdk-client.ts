/**
 * The SDK client itself, in a module of its own: `client.ts` imports this
 * module lazily, and a bundler keeps every export of a lazily imported
 * module, so the SDK's classes are imported here by name (statically), where
 * the unused ones can be dropped. See `client.ts`. The `#anthropic-sdk/*`
 * specifiers (package.json "imports") give Node the SDK's CommonJS build and a
 * bundler its ES modules; every run-time use of the SDK goes through them, so
 * zidane holds one copy of its classes.
 */

import type { ClientOptions } from '@anthropic-ai/sdk'
import { BaseAnthropic } from '#anthropic-sdk/client'
import { Messages } from '#anthropic-sdk/messages'

/** What the provider uses of a client: the Messages resource and the base URL (named in errors). */
export interface AnthropicClient {
  readonly messages: Messages
  readonly baseURL: string
  /** The options of one request that `signal` cancels (see `AttemptSignalClient`). */
  requestOptions: (signal: AbortSignal, headers: Record<string, string> | undefined) => RequestOptions
  /**
   * Send a streaming Messages request whose body is already encoded JSON
   * (see `../shared/body-json.ts`) through the client's own request path
   * (credentials, headers, retries, error mapping); the raw response.
   */
  streamMessages: (body: Uint8Array, signal: AbortSignal, headers: Record<string, string> | undefined) => Promise<Response>
}

/** The options `messages.create` takes besides the body. */
type RequestOptions = NonNullable<Parameters<Messages['create']>[1]>

/** Where a request's options carry the attempt's signal past the SDK's own `signal` handling. */
const ATTEMPT_SIGNAL = Symbol('zidane.attemptSignal')

/**
 * The SDK's base client, with each request's fetch cancelled by the attempt's
 * own signal. Given as the SDK's `signal` option, a signal gets a listener
 * that the SDK removes only when its own code finishes the body; the loop
 * reads the body itself (`readAnthropicBody`), so the SDK instead registers
 * every response with a `FinalizationRegistry` and keeps its controller, the
 * listener and the signal alive until a full garbage collection (see
 * docs/decisions/2026-12-02-attempt-signal-on-the-fetch.md). Set on the fetch in
 * `prepareRequest` (the SDK's documented hook, run right before each fetch),
 * the signal reaches the socket directly and nothing outlives the request.
 *
 * The SDK's own timeout and retries act through the signal it puts on the
 * fetch, which this replaces, so a client built with either keeps the SDK's
 * `signal` option instead (`requestOptions`).
 */
class AttemptSignalClient extends BaseAnthropic {
  protected override async prepareRequest(request: RequestInit, context: { url: string, options: object }): Promise<void> {
    // The SDK's own preparation (credentials, headers) first; it reads the options this override only widens.
    await super.prepareRequest(request, context as never)
    const signal = (context.options as { [ATTEMPT_SIGNAL]?: AbortSignal })[ATTEMPT_SIGNAL]
    if (signal)
      request.signal = signal
  }
}

/** A client with the Messages resource on the SDK's base client. */
export function buildAnthropicClient(settings: ClientOptions): AnthropicClient {
  const client = new AttemptSignalClient(settings)
  const sdkCancels = settings.timeout !== undefined || (settings.maxRetries ?? 0) > 0
  const requestOptions = (signal: AbortSignal, headers: Record<string, string> | undefined): RequestOptions => sdkCancels
    ? { signal, headers }
    : { headers, [ATTEMPT_SIGNAL]: signal } as RequestOptions
  return {
    messages: new Messages(client),
    baseURL: client.baseURL,
    requestOptions,
    // Bytes go out as they are; the content type says they are JSON.
    streamMessages: (body, signal, headers) => client.post<unknown>('/v1/messages', Object.assign(
      requestOptions(signal, Object.assign({ 'content-type': 'application/json' }, headers)),
      { body, stream: true },
    )).asResponse(),
  }
}
