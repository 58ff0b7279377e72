import type { ScriptedTurn } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { createAgent, definePolicy, nudge } from '../../src'
import { AgentBudgetExceededError, RunStateError } from '../../src/errors'
import { createSession, RUN_STATE_VERSION } from '../../src/session'
import { scriptedProvider } from '../../src/testing'

// The run as data, through the public API: a run paused at a turn boundary and continued by the next `run()`
// (or resumed with `resumeRunId`) picks up its counters, its serving model and its queued messages.

/** A tool that pauses the run on its `pauseOnCall`-th call (1-based), so the run stops at that turn's boundary. */
function pausingTool(name: string, pause: AbortController, pauseOnCall: number) {
  let calls = 0
  return {
    spec: { name, description: name, inputSchema: { type: 'object', properties: { command: { type: 'string' } } } },
    execute: () => {
      calls += 1
      if (calls === pauseOnCall)
        pause.abort()
      return `ran ${calls}`
    },
  }
}

let calls = 0

/** `count` turns that each call `name` once; call ids are unique across providers, as a real model's are. */
function callTurns(name: string, count: number, input: Record<string, unknown> = {}): ScriptedTurn[] {
  const turns: ScriptedTurn[] = []
  for (let i = 0; i < count; i++) turns.push({ toolCalls: [{ name, input, id: `call-${++calls}` }] })
  return turns
}

/** The text of every tool result the provider was sent in its last request's last message. */
function lastResults(provider: ReturnType<typeof scriptedProvider>): string[] {
  const last = provider.requests.at(-1)!.messages.at(-1)!
  return (last.content as { type: string, output?: unknown }[]).filter(block => block.type === 'tool_result').map(block => String(block.output))
}

describe('budgets and guards across pause-continue', () => {
  it('maxTurns counts the whole run: 3 turns, paused after 2, the continuation gets 1 more', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const t = pausingTool('t', pause, 2)
    const first = scriptedProvider(callTurns('t', 2))
    const paused = await createAgent({ provider: first, tools: { t }, session, behavior: { maxTurns: 3 } }).run({ prompt: 'go', pauseSignal: pause.signal })
    expect(paused).toMatchObject({ stopReason: 'paused', turns: 2 })

    const next = scriptedProvider(callTurns('t', 5))
    const continued = await createAgent({ provider: next, tools: { t }, session, behavior: { maxTurns: 3 } }).run()
    expect(continued.stopReason).toBe('max-turns')
    // The continuation's stats are its own leg; the model was called once.
    expect(continued.turns).toBe(1)
    expect(next.requests).toHaveLength(1)
    expect(session.runs.at(-1)!.state).toMatchObject({ version: RUN_STATE_VERSION, turnCount: 3 })
  })

  it('a tool budget spent before the pause stays spent', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const ran: string[] = []
    const t = {
      spec: { name: 't', description: 't', inputSchema: { type: 'object' } },
      execute: () => {
        ran.push('t')
        if (ran.length === 2)
          pause.abort()
        return 'ran'
      },
    }
    const behavior = { toolBudgets: { t: { max: 2, onExceed: 'block' as const } } }
    await createAgent({ provider: scriptedProvider(callTurns('t', 2)), tools: { t }, session, behavior }).run({ prompt: 'go', pauseSignal: pause.signal })
    expect(ran).toHaveLength(2)

    const next = scriptedProvider([...callTurns('t', 1), { text: 'done' }])
    await createAgent({ provider: next, tools: { t }, session, behavior }).run()
    expect(ran).toHaveLength(2)
    expect(lastResults(next)[0]).toMatch(/^Blocked: /)
  })

  it('a run budget counts the spend of the turns before the pause', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const t = pausingTool('t', pause, 2)
    // Each scripted turn spends 15 tokens: two before the pause, so the third crosses 40.
    const behavior = { maxTotalTokens: 40 }
    await createAgent({ provider: scriptedProvider(callTurns('t', 2)), tools: { t }, session, behavior }).run({ prompt: 'go', pauseSignal: pause.signal })
    const next = createAgent({ provider: scriptedProvider([...callTurns('t', 1), { text: 'done' }]), tools: { t }, session, behavior })
    const error = await next.run().catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(AgentBudgetExceededError)
    expect(error).toMatchObject({ limit: 'tokens', spent: 45 })
  })

  it('the repeat guard keeps counting identical calls across the pause', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const ran: string[] = []
    const shell = {
      spec: { name: 'shell', description: 'Run a shell command', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } },
      execute: ({ command }: Record<string, unknown>) => {
        ran.push(String(command))
        if (ran.length === 3)
          pause.abort()
        return 'FAIL: expected 2, got 3'
      },
    }
    const input = { command: 'npm test' }
    const behavior = { repeatGuard: {} }
    await createAgent({ provider: scriptedProvider(callTurns('shell', 3, input)), tools: { shell }, session, behavior }).run({ prompt: 'fix it', pauseSignal: pause.signal })
    expect(ran).toHaveLength(3)

    // The 4th identical command is refused, as it would have been without the pause.
    const next = scriptedProvider([...callTurns('shell', 1, input), { text: 'stuck' }])
    await createAgent({ provider: next, tools: { shell }, session, behavior }).run()
    expect(ran).toHaveLength(3)
    expect(lastResults(next)[0]).toMatch(/^Blocked: /)
  })

  it('the refusal resume counter goes on: refusals in a row across the pause reach the cap', async () => {
    const session = await createSession()
    const pause = new AbortController()
    let turns = 0
    const refusal: ScriptedTurn = { text: '', finishReason: 'content-filter' }
    const behavior = { maxConsecutiveRefusalResumes: 2 }
    // The host pauses after the second refused turn; both were continued, so the cap is spent.
    const hooks = { 'turn:after': () => void (++turns === 2 && pause.abort()) }
    const paused = await createAgent({ provider: scriptedProvider([refusal, refusal]), session, behavior, hooks }).run({ prompt: 'go', pauseSignal: pause.signal })
    expect(paused.stopReason).toBe('paused')

    const next = scriptedProvider([refusal, { text: 'answer' }])
    const continued = await createAgent({ provider: next, session, behavior }).run()
    expect(continued.stopReason).toBe('refusal-exhausted')
    expect(next.requests).toHaveLength(1)
  })

  it('a run started with a prompt of its own starts fresh', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const t = pausingTool('t', pause, 2)
    await createAgent({ provider: scriptedProvider(callTurns('t', 2)), tools: { t }, session, behavior: { maxTurns: 3 } }).run({ prompt: 'go', pauseSignal: pause.signal })
    const next = scriptedProvider([...callTurns('t', 2), { text: 'done' }])
    const fresh = await createAgent({ provider: next, tools: { t }, session, behavior: { maxTurns: 3 } }).run({ prompt: 'something else' })
    expect(fresh).toMatchObject({ stopReason: 'completed', turns: 3 })
    // Its record's state counts its own turns only: nothing of the paused run was carried into it.
    expect(session.runs.at(-1)!.state).toMatchObject({ turnCount: 3, usage: [{}, {}, {}] })
  })
})

describe('what a continuation carries over', () => {
  it('the fallback target: a resumed run stays on the model it had fallen back to', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const t = pausingTool('t', pause, 1)
    const failing = { error: { kind: 'auth' as const, message: 'auth failure', retryable: false } }
    const primary = scriptedProvider([failing, { text: 'primary answered' }], { name: 'primary', defaultModel: 'p-model' })
    const backup = scriptedProvider([...callTurns('t', 1), { text: 'backup answered' }], { name: 'backup', defaultModel: 'b-model' })
    const agent = createAgent({ provider: [primary, backup], tools: { t }, session })
    expect((await agent.run({ prompt: 'go', pauseSignal: pause.signal })).stopReason).toBe('paused')
    expect(session.runs.at(-1)!.state!.target).toEqual({ index: 1, provider: 'backup', model: 'b-model' })

    const resumed = await agent.run()
    expect(resumed.text).toBe('backup answered')
    expect(primary.requests).toHaveLength(1)
    expect(backup.requests).toHaveLength(2)
  })

  it('resumeRunId picks up that run\'s counters', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const t = pausingTool('t', pause, 2)
    await createAgent({ provider: scriptedProvider(callTurns('t', 2)), tools: { t }, session, behavior: { maxTurns: 3 } }).run({ prompt: 'go', pauseSignal: pause.signal })
    const pausedRun = session.runs.at(-1)!.id

    const next = scriptedProvider(callTurns('t', 5))
    const resumed = await createAgent({ provider: next, tools: { t }, session, behavior: { maxTurns: 3 } }).run({ prompt: 'carry on', resumeRunId: pausedRun })
    expect(resumed).toMatchObject({ stopReason: 'max-turns', turns: 1 })
    expect(session.runs.at(-1)!.resumedFromRunId).toBe(pausedRun)
  })

  it('resumeRunId on a run that finished: a new task, fresh counters, but still on the model it fell back to', async () => {
    const session = await createSession()
    const t = pausingTool('t', new AbortController(), 0)
    const failing = { error: { kind: 'auth' as const, message: 'auth failure', retryable: false } }
    const primary = scriptedProvider([failing], { name: 'primary', defaultModel: 'p-model' })
    const backup = scriptedProvider([...callTurns('t', 1), { text: 'first answer' }, ...callTurns('t', 1), { text: 'second answer' }], { name: 'backup', defaultModel: 'b-model' })
    const agent = createAgent({ provider: [primary, backup], tools: { t }, session, behavior: { maxTurns: 2 } })
    expect(await agent.run({ prompt: 'go' })).toMatchObject({ stopReason: 'completed', turns: 2 })
    const finished = session.runs.at(-1)!.id

    const resumed = await agent.run({ prompt: 'and once more', resumeRunId: finished })
    expect(resumed).toMatchObject({ stopReason: 'completed', turns: 2, text: 'second answer' })
    expect(primary.requests).toHaveLength(1)
  })

  it('a message queued at the pause joins the next leg', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const t = pausingTool('t', pause, 1)
    // A policy nudges after the first turn; the pause lands on that boundary, before the nudge was sent.
    const reminder = definePolicy<null>({
      name: 'reminder',
      afterTurn: ({ turn }) => turn === 1 ? { decision: nudge('Remember to run the tests.', 'nudge') } : undefined,
    })
    await createAgent({ provider: scriptedProvider(callTurns('t', 1)), tools: { t }, session, policies: [reminder] }).run({ prompt: 'go', pauseSignal: pause.signal })
    expect(session.runs.at(-1)!.state!.pending).toHaveLength(1)

    const next = scriptedProvider([{ text: 'tests pass' }])
    await createAgent({ provider: next, tools: { t }, session, policies: [reminder] }).run()
    const sent = next.requests[0].messages.at(-1)!
    expect(JSON.stringify(sent.content)).toContain('Remember to run the tests.')
  })
})

describe('a broken saved state', () => {
  it('refuses to continue with a RunStateError naming the field and the way out', async () => {
    const session = await createSession()
    const pause = new AbortController()
    const t = pausingTool('t', pause, 1)
    await createAgent({ provider: scriptedProvider(callTurns('t', 1)), tools: { t }, session }).run({ prompt: 'go', pauseSignal: pause.signal })
    const record = session.runs.at(-1)!
    await session.saveRun({ ...record, state: { ...record.state!, turnCount: 'two' as never } })

    const agent = createAgent({ provider: scriptedProvider([{ text: 'never' }]), tools: { t }, session })
    const error = await agent.run().catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(RunStateError)
    expect(error).toMatchObject({ path: 'turnCount', runId: record.id, sessionId: session.id })
    expect((error as Error).message).toMatch(/session\.saveRun\(\{ \.\.\.run, state: undefined \}\)/)

    // The way out the message names works: the record without its state restores nothing.
    await session.saveRun({ ...record, state: undefined })
    expect((await agent.run()).text).toBe('never')
  })
})
