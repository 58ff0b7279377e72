/**
 * The provider's SDK client, built on first use. zidane needs only the
 * Messages resource, so it builds the SDK's `BaseAnthropic` (transport,
 * auth, retries, error mapping) with `Messages` on it rather than the full
 * `Anthropic` class, which constructs every resource the API has. The SDK
 * marks its classes pure, so a bundler drops the rest: about 110 KB
 * minified instead of 416 KB (measured by `bench/bundle.ts`). In Node the first build still reads the
 * SDK's client module, which imports every resource; Node reads its CommonJS build, which loads faster
 * (package.json "imports", docs/decisions/2026-12-04-anthropic-sdk-build-by-condition.md).
 *
 * The SDK is imported in `sdk-client.ts`, loaded from here on the first
 * request: a bundler keeps every export of a module reached by `import()`,
 * so importing the SDK's own modules lazily would keep all of them.
 */

import type { ClientOptions } from '@anthropic-ai/sdk'
import type { AnthropicClient } from './sdk-client'

export type { AnthropicClient } from './sdk-client'

/** Load the SDK module (no key needed); the module system keeps it once loaded. */
export function loadAnthropicSdk(): Promise<typeof import('./sdk-client')> {
  return import('./sdk-client')
}

/** Load the SDK and build a client from `settings`. */
export async function loadAnthropicClient(settings: ClientOptions): Promise<AnthropicClient> {
  return (await loadAnthropicSdk()).buildAnthropicClient(settings)
}
