/**
 * The SDK client itself, in a module of its own: `client.ts` imports this
 * module lazily, and a bundler keeps every export of a lazily imported
 * module, so the SDK's classes are imported here by name (statically), where
 * the unused ones can be dropped. See `client.ts`.
 */

import type { ClientOptions } from '@anthropic-ai/sdk'
import { BaseAnthropic } from '@anthropic-ai/sdk/client'
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages'

/** What the provider uses of a client: the Messages resource and the base URL (named in errors). */
export interface AnthropicClient {
  readonly messages: Messages
  readonly baseURL: string
}

/** A client with the Messages resource on the SDK's base client. */
export function buildAnthropicClient(settings: ClientOptions): AnthropicClient {
  const client = new BaseAnthropic(settings)
  return { messages: new Messages(client), baseURL: client.baseURL }
}
