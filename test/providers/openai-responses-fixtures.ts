/** Shared inputs for the Responses provider tests, run against the shared fake OpenAI server. */

import type { StreamCallbacks, StreamOptions, TurnResult } from '../../src/providers/types'
import type { FakeOpenAI } from '../support/fake-openai'
import OpenAI from 'openai'
import { streamResponses } from '../../src/providers/openai/responses'
import { user } from './anthropic-fixtures'

export { assistant, recordCallbacks, rejectionOf, text, user } from './anthropic-fixtures'

/** Options for one turn; a fresh, never-aborted signal unless one is given. */
export function responsesOptions(overrides: Partial<StreamOptions> = {}): StreamOptions {
  return {
    model: 'gpt-5.2',
    system: 'You are terse.',
    messages: [user({ type: 'text', text: 'Hello?' })],
    tools: [],
    thinking: 'off',
    signal: new AbortController().signal,
    ...overrides,
  }
}

/** One turn against the fake, through a client configured the way the `openai()` factory builds it. */
export function streamAgainst(fake: FakeOpenAI, options: StreamOptions, callbacks: StreamCallbacks): Promise<TurnResult> {
  const client = new OpenAI({ apiKey: 'k', baseURL: fake.url, maxRetries: 0 })
  return streamResponses(client, options, callbacks, { providerName: 'openai' })
}
