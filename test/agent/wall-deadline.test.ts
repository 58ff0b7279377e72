import type { ToolDef } from '../../src/tools/types'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { AgentBudgetExceededError } from '../../src/errors'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { pairingProblems } from '../support/helpers'

// hardWallMs bounds the whole run in real time: at the deadline the run's
// signal aborts, the call in flight is answered with an error result
// (recorded, paired), and the run fails with the wall-clock budget error.
// maxWallMs is the soft cap: a tool in flight runs to its end, and the check
// after the turn fails the run.

function hungTool(listens: boolean, seen: { aborted?: boolean }): ToolDef {
  return {
    spec: { name: 'hang', description: 'never returns', inputSchema: { type: 'object', properties: {} } },
    execute: (_input, ctx) => new Promise((_, reject) => {
      if (!listens)
        return
      ctx.signal.addEventListener('abort', () => {
        seen.aborted = true
        reject(new Error('stopped'))
      })
    }),
  }
}

async function runHung(listens: boolean) {
  const seen: { aborted?: boolean } = {}
  const provider = scriptedProvider([{ toolCalls: [{ name: 'hang', input: {}, id: 'call_hang' }] }, { text: 'never' }])
  const session = await createSession()
  const agent = createAgent({ provider, session, tools: { hang: hungTool(listens, seen) }, behavior: { hardWallMs: 300 } })
  const error = await agent.run({ prompt: 'wait for it' }).catch(e => e)
  return { error, seen, session, provider }
}

describe('hardWallMs and a tool that never resolves', () => {
  it('aborts the tool\'s signal, records an error result for the call, and fails with the wall-clock budget error', async () => {
    const { error, seen, session, provider } = await runHung(true)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect((error as AgentBudgetExceededError).limit).toBe('wallClock')
    expect((error as AgentBudgetExceededError).max).toBe(300)
    expect(seen.aborted).toBe(true)
    expect(provider.requests).toHaveLength(1)

    const last = session.turns.at(-1)!
    expect(last.role).toBe('user')
    expect(last.content).toEqual([expect.objectContaining({ type: 'tool_result', callId: 'call_hang', isError: true, output: expect.stringContaining('hardWallMs') })])
    expect(pairingProblems(session.turns)).toEqual([])
    expect(session.runs.at(-1)?.status).toBe('aborted')
  })

  it('does not wait for a tool that ignores its signal', async () => {
    const { error, seen, session } = await runHung(false)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect((error as AgentBudgetExceededError).limit).toBe('wallClock')
    expect(seen.aborted).toBeUndefined()
    expect(session.turns.at(-1)?.content).toEqual([expect.objectContaining({ type: 'tool_result', callId: 'call_hang', isError: true })])
  })
})

describe('maxWallMs and a tool that outlives it', () => {
  it('lets the tool finish, records its result, and fails the run with the budget error after the turn', async () => {
    const seen: { aborted?: boolean } = {}
    const provider = scriptedProvider([{ toolCalls: [{ name: 'slow', input: {}, id: 'call_slow' }] }, { text: 'never' }])
    const session = await createSession()
    const slow: ToolDef = {
      spec: { name: 'slow', description: 'takes a while', inputSchema: { type: 'object', properties: {} } },
      execute: (_input, ctx) => new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          seen.aborted = true
        })
        setTimeout(resolve, 120, 'finished')
      }),
    }
    const agent = createAgent({ provider, session, tools: { slow }, behavior: { maxWallMs: 40 } })
    const error = await agent.run({ prompt: 'go' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'wallClock', max: 40 })
    expect((error as AgentBudgetExceededError).spent).toBeGreaterThanOrEqual(120)
    expect(seen.aborted).toBeUndefined()
    expect(provider.requests).toHaveLength(1)
    expect(session.turns.at(-1)?.content).toEqual([expect.objectContaining({ type: 'tool_result', callId: 'call_slow', output: 'finished' })])
    expect(pairingProblems(session.turns)).toEqual([])
    expect(session.runs.at(-1)?.status).toBe('aborted')
  })

  it('the lower of the two ends the run: hardWallMs below maxWallMs interrupts the tool', async () => {
    const { error, seen } = await (async () => {
      const seen: { aborted?: boolean } = {}
      const provider = scriptedProvider([{ toolCalls: [{ name: 'hang', input: {}, id: 'call_hang' }] }, { text: 'never' }])
      const agent = createAgent({ provider, tools: { hang: hungTool(true, seen) }, behavior: { maxWallMs: 60_000, hardWallMs: 50 } })
      return { error: await agent.run({ prompt: 'go' }).catch(e => e), seen }
    })()
    expect(error).toMatchObject({ name: 'AgentBudgetExceededError', limit: 'wallClock', max: 50 })
    expect(seen.aborted).toBe(true)
  })
})

describe('maxWallMs and a retry delay', () => {
  it('cuts a retry delay that would end past the cap, and ends the run with the budget error', async () => {
    // The server asks for a minute's wait; the cap is 50 ms: without the bound the run would sleep through the test's timeout.
    const provider = scriptedProvider([{ error: { kind: 'rate_limit', retryable: true, retryAfterMs: 60_000 } }, { text: 'never' }])
    const agent = createAgent({ provider, behavior: { maxWallMs: 50, retry: { maxAttempts: 2, maxDelayMs: 120_000 } } })
    const error = await agent.run({ prompt: 'go' }).catch(e => e)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'wallClock', max: 50 })
    expect(provider.requests).toHaveLength(1)
  }, 10_000)
})
