import type { AgentBehavior, AgentHookMap, ToolDef } from '../../src'
import type { Session } from '../../src/session'
import type { FakeAnthropic, ScriptedAnthropicTurn } from '../support/fake-anthropic'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { startFakeAnthropic } from '../support/fake-anthropic'

/** A concurrency-safe tool that counts its runs and answers `n` bytes of `x` (or `text`). */
export function probeTool(name = 'probe'): { def: ToolDef, runs: () => number } {
  let runs = 0
  const def: ToolDef = {
    spec: { name, description: 'Answers n bytes.', inputSchema: { type: 'object', properties: { n: { type: 'number' }, text: { type: 'string' } } } },
    isConcurrencySafe: true,
    execute: async (input) => {
      runs++
      const { n, text } = input as { n?: number, text?: string }
      await new Promise(resolve => setTimeout(resolve, 1))
      return text ?? 'x'.repeat(n ?? 1)
    },
  }
  return { def, runs: () => runs }
}

/**
 * Run an agent on the Anthropic provider against the fake Messages server,
 * one scripted model turn per entry, then a closing text turn. Returns the
 * request bodies the server received (what reached the model).
 */
export async function runOnFakeAnthropic(options: {
  turns: ScriptedAnthropicTurn[]
  tools: Record<string, ToolDef>
  behavior?: AgentBehavior
  hooks?: AgentHookMap
  session?: Session
  execution?: Parameters<typeof createAgent>[0]['execution']
}): Promise<{ bodies: any[], fake: FakeAnthropic }> {
  const fake = await startFakeAnthropic()
  try {
    fake.enqueue(...options.turns.map(turn => ({ type: 'turn' as const, turn })), { type: 'turn', turn: { text: 'done' } })
    const agent = createAgent({
      provider: anthropic({ baseURL: fake.url, apiKey: 'test-key' }),
      tools: options.tools,
      behavior: options.behavior,
      hooks: options.hooks,
      session: options.session,
      execution: options.execution,
    })
    await agent.run({ prompt: 'go' })
    await agent.destroy()
    return { bodies: fake.requests.map(request => request.body), fake }
  }
  finally {
    await fake.close()
  }
}

/** Every text a request body carries to the model: message texts and tool-result texts, in order. */
export function textsOf(body: any): string[] {
  const out: string[] = []
  for (const message of body.messages as any[]) {
    if (typeof message.content === 'string') {
      out.push(message.content)
      continue
    }
    for (const block of message.content as any[]) {
      if (block.type === 'text')
        out.push(block.text)
      if (block.type === 'tool_result')
        out.push(typeof block.content === 'string' ? block.content : (block.content as any[]).map(part => part.text ?? '').join(''))
    }
  }
  return out
}
