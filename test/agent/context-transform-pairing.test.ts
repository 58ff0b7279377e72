import type { SessionMessage } from '../../src/core/content'
import type { PairingRepair } from '../../src/errors'
import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentToolPairingError } from '../../src/errors'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { echoTool, pairingProblems } from '../support/helpers'

// A context:transform hook adds an orphan tool_result to the user message that
// holds the prompt, editing the view in place. The request must not carry it
// (the prompt text stays), pairing:repair reports it, and the session is left
// as it was.

const ghost = { type: 'tool_result' as const, callId: 'ghost_1', output: 'from nowhere' }

/** Push the orphan into the prompt message (the first one) on the given turns. */
function addOrphanOn(turns: number[]) {
  let turn = 0
  return (ctx: { messages: SessionMessage[] }) => {
    turn++
    if (turns.includes(turn))
      ctx.messages[0].content.push(ghost)
  }
}

/** What each request carried at the moment it was sent. */
function snapshotting(script: ScriptedTurn[]) {
  const sent: SessionMessage[][] = []
  const provider = scriptedProvider(script.map(turn => ({ respond: (request) => {
    sent.push(structuredClone(request.messages))
    return turn
  } })))
  return { provider, sent }
}

describe('an orphan tool_result added by context:transform next to the prompt text', () => {
  it.each([[[1]], [[2]], [[1, 2]]])('is dropped from the request on turn(s) %j, reported, and never recorded', async (turns) => {
    const { provider, sent } = snapshotting([{ toolCalls: [{ name: 'echo', input: {}, id: 'call_1' }] }, { text: 'done' }])
    const session = await createSession()
    const repairs: PairingRepair[] = []
    const agent = createAgent({ provider, session, tools: { echo: echoTool('echo') } })
    agent.hooks.hook('context:transform', addOrphanOn(turns))
    agent.hooks.hook('pairing:repair', ({ repair }) => void repairs.push(repair))

    const stats = await agent.run({ prompt: 'hello there' })
    expect(stats.text).toBe('done')
    for (const messages of [...sent, ...provider.requests.map(r => r.messages)]) {
      expect(messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'hello there' }] })
      expect(pairingProblems(messages)).toEqual([])
    }
    expect(repairs).toEqual(turns.map(() => ({ kind: 'orphan-tool-result', action: 'dropped', callId: 'ghost_1', messageIndex: 0 })))
    expect(session.turns[0].content).toEqual([{ type: 'text', text: 'hello there' }])
    expect(session.turns.flatMap(t => t.content).filter(b => b.type === 'tool_result').map(b => b.callId)).toEqual(['call_1'])
  })

  it('with strictToolPairing, is reported on pairing:repair and then fails the run with AgentToolPairingError', async () => {
    const { provider, sent } = snapshotting([{ text: 'never' }])
    const session = await createSession()
    const repairs: PairingRepair[] = []
    const agent = createAgent({ provider, session, behavior: { strictToolPairing: true } })
    agent.hooks.hook('context:transform', addOrphanOn([1]))
    agent.hooks.hook('pairing:repair', ({ repair }) => void repairs.push(repair))

    const error = await agent.run({ prompt: 'hello there' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentToolPairingError)
    expect((error as AgentToolPairingError).repairs).toEqual(repairs)
    expect(repairs).toEqual([{ kind: 'orphan-tool-result', action: 'dropped', callId: 'ghost_1', messageIndex: 0 }])
    expect(sent).toEqual([])
    expect(session.turns.map(t => t.content)).toEqual([[{ type: 'text', text: 'hello there' }]])
  })

  it('never reaches the Messages API body', async () => {
    const fake = await startFakeAnthropic()
    try {
      fake.enqueue(
        { type: 'turn', turn: { toolCalls: [{ id: 'toolu_1', name: 'echo', input: {} }] } },
        { type: 'turn', turn: { text: 'done' } },
      )
      const agent = createAgent({ provider: anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }), tools: { echo: echoTool('echo') } })
      agent.hooks.hook('context:transform', addOrphanOn([2]))
      expect((await agent.run({ prompt: 'hello there' })).text).toBe('done')
      const bodies = fake.requests.map(r => r.body)
      const ids = bodies.flatMap(body => body.messages.flatMap((m: { content: unknown }) => Array.isArray(m.content) ? m.content : []))
        .filter((block: { type: string }) => block.type === 'tool_result')
        .map((block: { tool_use_id: string }) => block.tool_use_id)
      expect(ids).toEqual(['toolu_1'])
      const promptText = (body: { messages: { content: unknown }[] }) => JSON.stringify(body.messages[0].content)
      expect(promptText(bodies[1])).toContain('hello there')
      expect(promptText(bodies[1])).not.toContain('ghost_1')
    }
    finally {
      await fake.close()
    }
  })
})
