import type { SessionTurn } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { createAgent, SYNTHETIC_TOOL_RESULT_PLACEHOLDER } from '../../src'
import { AgentToolPairingError } from '../../src/errors'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'

/** A stored conversation with two defects: a call without a result, and a result without a call. */
const corrupted: SessionTurn[] = [
  { id: 'u1', role: 'user', content: [{ type: 'text', text: 'start' }], createdAt: 1 },
  { id: 'a1', role: 'assistant', content: [{ type: 'tool_call', id: 'lost', name: 'echo', input: {} }], createdAt: 2 },
  { id: 'u2', role: 'user', content: [{ type: 'text', text: 'next' }, { type: 'tool_result', callId: 'stray', output: 'x' }], createdAt: 3 },
  { id: 'a2', role: 'assistant', content: [{ type: 'text', text: 'ok' }], createdAt: 4 },
]

async function corruptedSession() {
  const session = await createSession()
  await session.appendTurns(corrupted)
  return session
}

describe('pairing repair in the loop', () => {
  it('repairs the request (not the stored turns) and announces each repair', async () => {
    const session = await corruptedSession()
    const repairs: string[] = []
    const provider = scriptedProvider([{ text: 'answer' }])
    const agent = createAgent({ provider, session, hooks: { 'pairing:repair': ({ repair }) => void repairs.push(`${repair.kind}:${repair.callId}`) } })
    await agent.run({ prompt: 'continue' })

    expect(repairs.sort()).toEqual(['orphan-tool-call:lost', 'orphan-tool-result:stray'])
    const sent = provider.requests[0].messages
    expect(sent[2].content).toContainEqual({ type: 'tool_result', callId: 'lost', output: SYNTHETIC_TOOL_RESULT_PLACEHOLDER, isError: true })
    expect(JSON.stringify(sent)).not.toContain('stray')
    // The stored turns keep their defects: the past is never rewritten.
    expect(session.turns.slice(0, 4)).toEqual(corrupted)
  })

  it('strictToolPairing fails the run with the repair list instead', async () => {
    const session = await corruptedSession()
    const provider = scriptedProvider([{ text: 'never' }])
    const agent = createAgent({ provider, session, behavior: { strictToolPairing: true } })
    const error = await agent.run({ prompt: 'continue' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentToolPairingError)
    expect(error.repairs).toHaveLength(2)
    expect(provider.requests).toHaveLength(0)
  })

  it('maxPairingRepairsPerTurn fails a run that needs more repairs than allowed, and allows fewer', async () => {
    const tooMany = createAgent({ provider: scriptedProvider([{ text: 'x' }]), session: await corruptedSession(), behavior: { maxPairingRepairsPerTurn: 1 } })
    await expect(tooMany.run({ prompt: 'continue' })).rejects.toBeInstanceOf(AgentToolPairingError)
    const enough = createAgent({ provider: scriptedProvider([{ text: 'x' }]), session: await corruptedSession(), behavior: { maxPairingRepairsPerTurn: 2 } })
    expect((await enough.run({ prompt: 'continue' })).stopReason).toBe('completed')
  })
})
