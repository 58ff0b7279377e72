import type { AgentBehavior, AgentOptions, AgentRunOptions } from '../../../src'
import type { FakeAnthropic, RecordedRequest } from '../../support/fake-anthropic'
import { createAgent } from '../../../src'
import { anthropic } from '../../../src/providers/anthropic'
import { startFakeAnthropic } from '../../support/fake-anthropic'

/**
 * Run one turn of the real Anthropic provider (official SDK) against the fake
 * Messages server and return what it sent, so a provider knob is judged by
 * the bytes on the wire rather than by what the loop handed the provider.
 */
export async function anthropicRequest(behavior: AgentBehavior, options: Partial<AgentOptions> = {}, run: Partial<AgentRunOptions> = {}): Promise<RecordedRequest> {
  const fake: FakeAnthropic = await startFakeAnthropic()
  try {
    fake.enqueue({ type: 'turn', turn: { text: 'ok', usage: { input_tokens: 10, output_tokens: 2 } } })
    const provider = anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' })
    const agent = createAgent({ provider, system: 'Be brief.', ...options, behavior })
    await agent.run({ prompt: 'hello', ...run })
    await agent.destroy()
    return fake.requests[0]
  }
  finally {
    await fake.close()
  }
}
