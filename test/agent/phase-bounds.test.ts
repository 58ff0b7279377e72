import type { BehaviorPolicy } from '../../src'
import type { AgentBehavior } from '../../src/knobs/behavior'
import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentBudgetExceededError } from '../../src/errors'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { echoTool, pairingProblems } from '../support/helpers'

// A policy phase that never settles must not hold the run: the run's signal
// (agent.abort(), run({ signal })) and both wall-clock bounds end it, with
// every tool call answered and the phase's own `run.signal` aborted so a
// well-behaved policy can stop its I/O.

type Phase = 'prompt' | 'request' | 'gateBatch' | 'gateCall' | 'result' | 'afterTurn' | 'providerError'

/** What the model does so the run reaches each phase. */
const SCRIPTS: Record<Phase, ScriptedTurn[]> = {
  prompt: [{ text: 'never' }],
  request: [{ text: 'never' }],
  gateBatch: [{ toolCalls: [{ name: 'a', input: {}, id: 'call_1' }, { name: 'a', input: {}, id: 'call_2' }] }, { text: 'never' }],
  gateCall: [{ toolCalls: [{ name: 'a', input: {}, id: 'call_1' }, { name: 'a', input: {}, id: 'call_2' }] }, { text: 'never' }],
  result: [{ toolCalls: [{ name: 'a', input: {}, id: 'call_1' }, { name: 'a', input: {}, id: 'call_2' }] }, { text: 'never' }],
  afterTurn: [{ toolCalls: [{ name: 'a', input: {}, id: 'call_1' }] }, { text: 'never' }],
  providerError: [{ error: { kind: 'invalid_request', retryable: false } }],
}

type Ender = 'agent.abort()' | 'run signal' | 'maxWallMs' | 'hardWallMs'

const PHASES = Object.keys(SCRIPTS) as Phase[]
const ENDERS: Ender[] = ['agent.abort()', 'run signal', 'maxWallMs', 'hardWallMs']
const CASES = PHASES.flatMap(phase => ENDERS.map(ender => [phase, ender] as const))

const WALL_MS = 60

function stuckPolicy(phase: Phase, seen: { entered: number, signalAborted: boolean }, onEnter: () => void): BehaviorPolicy {
  const never = ({ run }: { run: { signal: AbortSignal } }) => {
    seen.entered++
    run.signal.addEventListener('abort', () => {
      seen.signalAborted = true
    })
    onEnter()
    return new Promise<never>(() => {})
  }
  return { name: 'stuck', [phase]: never } as BehaviorPolicy
}

describe('a policy phase that never settles', () => {
  it.each(CASES)('%s: %s ends the run', async (phase, ender) => {
    const seen = { entered: 0, signalAborted: false }
    const controller = new AbortController()
    const session = await createSession()
    const behavior: AgentBehavior = ender === 'maxWallMs' ? { maxWallMs: WALL_MS } : ender === 'hardWallMs' ? { hardWallMs: WALL_MS } : {}
    const provider = scriptedProvider(SCRIPTS[phase])
    let abortAgent = () => {}
    const agent = createAgent({
      provider,
      session,
      tools: { a: echoTool('a') },
      behavior: { ...behavior, maxConcurrentTools: 1 },
      policies: [stuckPolicy(phase, seen, () => {
        // Once the phase is entered (later, so the run is inside its await).
        if (seen.entered === 1)
          setTimeout(abortAgent, 10)
      })],
    })
    abortAgent = ender === 'agent.abort()' ? () => agent.abort() : ender === 'run signal' ? () => controller.abort() : () => {}

    const outcome = await agent.run({ prompt: 'go', signal: controller.signal }).then(stats => ({ stats }), (error: unknown) => ({ error }))

    // The result phase also sees the later call, answered as aborted.
    expect(seen.entered).toBeGreaterThanOrEqual(1)
    expect(seen.signalAborted).toBe(true)
    if (ender === 'maxWallMs' || ender === 'hardWallMs') {
      expect('error' in outcome && outcome.error).toBeInstanceOf(AgentBudgetExceededError)
      expect((outcome as { error: AgentBudgetExceededError }).error).toMatchObject({ limit: 'wallClock', max: WALL_MS })
      expect(session.runs.at(-1)?.status).toBe('aborted')
    }
    else {
      expect('stats' in outcome && outcome.stats.stopReason).toBe('aborted')
      expect(session.runs.at(-1)?.stopReason).toBe('aborted')
    }
    // Every call the model made is answered, in the run and in the store.
    expect(pairingProblems(session.turns)).toEqual([])
    const calls = session.turns.flatMap(turn => turn.content.filter(block => block.type === 'tool_call'))
    const results = session.turns.flatMap(turn => turn.content.filter(block => block.type === 'tool_result'))
    expect(results).toHaveLength(calls.length)
    const outputs = results.map(block => block.type === 'tool_result' ? String(block.output) : '')
    if (phase === 'gateBatch' || phase === 'gateCall')
      expect(outputs.every(output => output.startsWith('Aborted:') && output.includes('before this tool call started'))).toBe(true)
    // A call that ran keeps its real result; the one the cut kept from running says so.
    if (phase === 'result')
      expect(outputs).toEqual(['a:{}', expect.stringContaining('before this tool call started')])
    // A call the cut answered names the bound that ran out.
    if ((ender === 'maxWallMs' || ender === 'hardWallMs') && (phase === 'gateBatch' || phase === 'gateCall' || phase === 'result'))
      expect(outputs.filter(output => output.startsWith('Aborted:')).every(output => output.includes(`(${ender})`))).toBe(true)
  }, 10_000)
})
