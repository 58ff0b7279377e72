/**
 * Failures particular to the Chat Completions family. The classifier of
 * `openai` SDK errors is shared with the Responses API (`../shared/openai-sdk-errors`).
 */

import { ClassifiedError } from '../../errors'

export { classifyOpenAISdkError as classifyChatError } from '../shared/openai-sdk-errors'
export type { ClassifyContext } from '../shared/openai-sdk-errors'

/** The key is checked before any request, so its absence never reaches the network. */
export function missingApiKeyError(provider: string, hint: string): ClassifiedError {
  return new ClassifiedError(`No ${provider} API key: ${hint}`, { kind: 'auth', retryable: false, provider })
}

/** A stream that ended before any choice said why it stopped was cut off on the way. */
export function truncatedStreamError(provider: string): ClassifiedError {
  return new ClassifiedError(`The ${provider} stream ended before a finish_reason`, { kind: 'network', retryable: true, provider })
}

/** A stream that finished with `finish_reason: 'error'` but no error payload: the upstream model failed mid-generation. */
export function generationFailedError(provider: string): ClassifiedError {
  return new ClassifiedError(`The ${provider} stream finished with an error`, { kind: 'server', retryable: true, provider })
}

/** Content the API cannot carry, refused before anything is sent. */
export function unsupportedContentError(provider: string, what: string): ClassifiedError {
  return new ClassifiedError(`${provider} does not accept ${what}`, { kind: 'unsupported', retryable: false, provider })
}
