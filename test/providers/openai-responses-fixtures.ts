/** Shared inputs for the Responses provider tests, run against the shared fake OpenAI server. */

import type { StreamCallbacks, StreamOptions, TurnResult } from '../../src/providers/types'
import type { FakeOpenAI, RawSseEvent } from '../support/fake-openai'
import OpenAI from 'openai'
import { createAgent } from '../../src'
import { openai } from '../../src/providers/openai'
import { streamResponses } from '../../src/providers/openai/responses'
import { createSession } from '../../src/session'
import { lookupTool } from '../support/lookup-tool'
import { responsesEvents } from '../support/openai-responses-sse'
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

/** One Responses event of `type`, its fields from `body`. */
export function responsesEvent(type: string, body: Record<string, unknown> = {}): RawSseEvent {
  return { event: type, data: { type, ...body } }
}

/** A client whose every request is answered with `body`, with no socket: the test decides how the bytes are cut, and timings measure the reader alone. */
export function clientAnswering(body: () => ReadableStream<Uint8Array>): OpenAI {
  return new OpenAI({
    apiKey: 'k',
    baseURL: 'http://responses.test/v1',
    maxRetries: 0,
    fetch: async () => new Response(body(), { status: 200, headers: { 'content-type': 'text/event-stream' } }),
  })
}

/** A run with the lookup tool on a fresh session: the first turn streams `events`, the next says "Done.". */
export async function runLookupAgent(fake: FakeOpenAI, events: RawSseEvent[], prompt = 'Look it up.') {
  fake.enqueue({ type: 'sse', events })
  fake.enqueue({ type: 'sse', events: responsesEvents({ text: 'Done.' }) })
  const session = await createSession()
  const agent = createAgent({
    provider: openai({ api: 'responses', apiKey: 'k', baseURL: fake.url, defaultModel: 'gpt-5.2' }),
    session,
    tools: { lookup: lookupTool },
    behavior: { retry: { maxAttempts: 1 } },
  })
  const stats = await agent.run({ prompt })
  return { stats, session }
}
