import type { SessionTurn } from '../../../../src/core/content'
import type { SessionKnobs } from '../../../../src/knobs/session-knobs'
import type { SessionStore } from '../../../../src/session'
import type { SliceScenarios } from '../harness'
import { createAgent } from '../../../../src'
import { createMemoryStore, createSession } from '../../../../src/session'
import { scriptedProvider } from '../../../../src/testing'
import { echoTool } from '../../../support/helpers'
import { endOf } from '../harness'

/** A stored conversation with two pairing defects: a call without a result, and a result without a call. */
const CORRUPTED: SessionTurn[] = [
  { id: 'u1', role: 'user', content: [{ type: 'text', text: 'start' }], createdAt: 1 },
  { id: 'a1', role: 'assistant', content: [{ type: 'tool_call', id: 'lost', name: 'echo', input: {} }], createdAt: 2 },
  { id: 'u2', role: 'user', content: [{ type: 'text', text: 'next' }, { type: 'tool_result', callId: 'stray', output: 'x' }], createdAt: 3 },
  { id: 'a2', role: 'assistant', content: [{ type: 'text', text: 'ok' }], createdAt: 4 },
]

async function corrupted() {
  const session = await createSession()
  await session.appendTurns(CORRUPTED)
  return session
}

export const sessionScenarios: SliceScenarios<SessionKnobs> = {
  persistTurns: {
    value: false,
    // The sizes of the store writes: turn by turn, or once at the end.
    outcome: async (behavior) => {
      const inner = createMemoryStore()
      const batches: number[] = []
      const store: SessionStore = { ...inner, appendTurns: async (id, turns, write) => {
        batches.push(turns.length)
        await inner.appendTurns(id, turns, write)
      } }
      const provider = scriptedProvider([{ toolCalls: [{ name: 'a', input: {} }] }, { text: 'done' }])
      await createAgent({ provider, tools: { a: echoTool('a') }, session: await createSession({ store }), behavior }).run({ prompt: 'go' })
      return batches
    },
    unset: [1, 2, 1],
    set: [1, 3],
  },
  strictToolPairing: {
    value: true,
    outcome: async behavior => endOf({ provider: scriptedProvider([{ text: 'answer' }]), session: await corrupted(), behavior }, { prompt: 'continue' }),
    unset: 'completed',
    set: 'AgentToolPairingError',
  },
  maxPairingRepairsPerTurn: {
    value: 1,
    outcome: async behavior => endOf({ provider: scriptedProvider([{ text: 'answer' }]), session: await corrupted(), behavior }, { prompt: 'continue' }),
    unset: 'completed',
    set: 'AgentToolPairingError',
  },
}
