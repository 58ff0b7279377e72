import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { openaiCompat } from '../../src/providers/openai-compat'
import { createSession } from '../../src/session'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'
import { responsesEvents } from '../support/openai-responses-sse'
import { strictAnthropic, strictOpenAI } from '../support/strict-wire'

// One conversation moves Anthropic → OpenAI chat → OpenAI Responses → Anthropic.
// Each API must receive only what it accepts: its own signatures and encrypted
// reasoning, nobody else's; tool-call ids it can take; every call paired.

let claude: FakeAnthropic
let gpt: FakeOpenAI
beforeEach(async () => {
  claude = await startFakeAnthropic()
  gpt = await startFakeOpenAI()
})
afterEach(async () => {
  await Promise.all([claude.close(), gpt.close()])
})

const lookup = tool({
  name: 'lookup',
  description: 'Look a word up',
  input: z.object({ word: z.string() }),
  execute: ({ word }) => `meaning of ${word}`,
})

describe('a session that changes provider', () => {
  it('sends each API only what it accepts, with tool calls paired throughout', async () => {
    const session = await createSession()
    const onClaude = () => createAgent({ provider: anthropic({ apiKey: 'k', baseURL: claude.url, defaultModel: 'claude-sonnet-4-6' }), tools: { lookup }, session })
    const onChat = () => createAgent({ provider: openai({ apiKey: 'k', baseURL: gpt.url, defaultModel: 'gpt-5.2', api: 'chat' }), tools: { lookup }, session })
    const onResponses = () => createAgent({ provider: openai({ apiKey: 'k', baseURL: gpt.url, defaultModel: 'gpt-5.2', api: 'responses' }), tools: { lookup }, session })

    // 1. Anthropic: signed thinking and a toolu_ call.
    claude.enqueue(
      { type: 'turn', turn: { thinking: { text: 'think A', signature: 'SIG-ANTHROPIC' }, toolCalls: [{ id: 'toolu_01A', name: 'lookup', input: { word: 'alpha' } }] } },
      { type: 'turn', turn: { text: 'alpha done' } },
    )
    await onClaude().run({ prompt: 'define alpha', thinking: 'low', behavior: { thinkingBudget: 1024 } })

    // 2. OpenAI chat.
    gpt.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'call_chat1', name: 'lookup', input: { word: 'beta' } }] } },
      { type: 'turn', turn: { text: 'beta done' } },
    )
    await onChat().run({ prompt: 'define beta' })
    const chatBody = JSON.stringify(gpt.requests[0].body)
    expect(chatBody).not.toContain('SIG-ANTHROPIC')
    expect(chatBody).not.toContain('think A')
    const chatMessages = gpt.requests[0].body.messages as { role: string, tool_calls?: { id: string }[], tool_call_id?: string }[]
    const chatCallIds = chatMessages.flatMap(m => m.tool_calls?.map(c => c.id) ?? [])
    const chatResultIds = chatMessages.flatMap(m => m.role === 'tool' ? [m.tool_call_id] : [])
    expect(chatResultIds).toEqual(chatCallIds)
    expect(chatCallIds).toHaveLength(1)

    // 3. OpenAI Responses: encrypted reasoning of its own.
    gpt.enqueue({ type: 'sse', events: responsesEvents({ reasoning: { id: 'rs_1', summary: ['plan'], encryptedContent: 'ENC-OPENAI' }, text: 'gamma done', model: 'gpt-5.2' }) as never })
    await onResponses().run({ prompt: 'define gamma' })
    const responsesBody = gpt.requests.at(-1)!.body as { input: { type: string, call_id?: string }[] }
    expect(JSON.stringify(responsesBody)).not.toContain('SIG-ANTHROPIC')
    const calls = responsesBody.input.filter(item => item.type === 'function_call').map(item => item.call_id)
    const outputs = responsesBody.input.filter(item => item.type === 'function_call_output').map(item => item.call_id)
    expect(outputs).toEqual(calls)
    expect(calls).toHaveLength(2)
    // Both ids are valid here as they are, so both are sent unchanged.
    expect(calls).toEqual(['toolu_01A', 'call_chat1'])

    // 4. Back on Anthropic: its own signature comes back, OpenAI's encrypted reasoning does not.
    claude.enqueue({ type: 'turn', turn: { text: 'all done' } })
    const stats = await onClaude().run({ prompt: 'summarize' })
    expect(stats.text).toBe('all done')
    const last = claude.requests.at(-1)!.body
    const lastJson = JSON.stringify(last)
    expect(lastJson).toContain('SIG-ANTHROPIC')
    expect(lastJson).not.toContain('ENC-OPENAI')
    const uses = last.messages.flatMap((m: any) => Array.isArray(m.content) ? m.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id) : [])
    const results = last.messages.flatMap((m: any) => Array.isArray(m.content) ? m.content.filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id) : [])
    expect(results).toEqual(uses)
    expect(uses).toHaveLength(2)
    expect(uses.every((id: string) => /^[\w-]+$/.test(id))).toBe(true)
  })

  it('maps ids another server made into what each API accepts, the same way every request', async () => {
    // Both servers check ids as the real APIs do and answer 400 to anything else.
    const claudeScript = strictAnthropic()
    const gptScript = strictOpenAI()
    const strictClaude = await startFakeAnthropic({ fallback: claudeScript.fallback })
    const strictGpt = await startFakeOpenAI({ fallback: gptScript.fallback })
    try {
      const session = await createSession()
      const odd = 'call.odd:id/1'
      const long = `gw/${'segment:'.repeat(10)}end`
      const onCompat = () => createAgent({ provider: openaiCompat({ name: 'gateway', baseURL: strictGpt.url, defaultModel: 'served-model' }), tools: { lookup }, session })
      const onClaude = () => createAgent({ provider: anthropic({ apiKey: 'k', baseURL: strictClaude.url, defaultModel: 'claude-sonnet-4-6' }), tools: { lookup }, session })
      const onResponses = () => createAgent({ provider: openai({ apiKey: 'k', baseURL: strictGpt.url, defaultModel: 'gpt-5.2', api: 'responses' }), tools: { lookup }, session })

      // 1. An OpenAI-compatible gateway names its calls with `.`, `:` and `/`, one of them 83 characters long.
      gptScript.enqueue(
        { type: 'turn', turn: { toolCalls: [{ id: odd, name: 'lookup', input: { word: 'alpha' } }, { id: long, name: 'lookup', input: { word: 'beta' } }] } },
        { type: 'turn', turn: { text: 'both done' } },
      )
      expect((await onCompat().run({ prompt: 'define alpha and beta' })).text).toBe('both done')

      // 2. Anthropic, twice: valid ids, paired, and the same bytes on the second request.
      claudeScript.enqueue({ type: 'turn', turn: { text: 'continued' } }, { type: 'turn', turn: { text: 'again' } })
      expect((await onClaude().run({ prompt: 'go on' })).text).toBe('continued')
      expect((await onClaude().run({ prompt: 'once more' })).text).toBe('again')
      const idsIn = (body: any) => body.messages.flatMap((m: any) => Array.isArray(m.content) ? m.content.filter((b: any) => b.type === 'tool_use' || b.type === 'tool_result').map((b: any) => b.id ?? b.tool_use_id) : [])
      const [first, second] = strictClaude.requests.map(r => idsIn(r.body))
      expect(first).toHaveLength(4)
      expect(first[0]).toMatch(/^call_odd_id_1_[0-9a-f]{24}$/)
      expect(first[1]).toMatch(/^gw_segment_/)
      expect(first.slice(2)).toEqual(first.slice(0, 2))
      expect(second).toEqual(first)
      expect(JSON.stringify(strictClaude.requests[1].body.messages.slice(0, 4))).toBe(JSON.stringify(strictClaude.requests[0].body.messages.slice(0, 4)))

      // 3. The Responses API takes the 13-character id as it is and maps the 83-character one.
      gptScript.enqueue({ type: 'sse', events: responsesEvents({ text: 'fine', model: 'gpt-5.2' }) as never })
      expect((await onResponses().run({ prompt: 'and now?' })).text).toBe('fine')
      const input = strictGpt.requests.at(-1)!.body.input as { type: string, call_id?: string }[]
      const calls = input.filter(item => item.type === 'function_call').map(item => item.call_id!)
      expect(input.filter(item => item.type === 'function_call_output').map(item => item.call_id)).toEqual(calls)
      expect(calls[0]).toMatch(/^call_odd_id_1_[0-9a-f]{24}$/)
      expect(calls[1]).toHaveLength(64)

      expect(claudeScript.refusals).toEqual([])
      expect(gptScript.refusals).toEqual([])
      // The session keeps the ids as the gateway made them.
      const stored = session.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_call').map(block => (block as { id: string }).id)
      expect(stored).toEqual([odd, long])
    }
    finally {
      await Promise.all([strictClaude.close(), strictGpt.close()])
    }
  })
})
