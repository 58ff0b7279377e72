import type { RepeatGuardExceededContext } from '../../src'
import type { ScriptedTurn } from '../../src/testing'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, definePolicy, tool } from '../../src'
import { canonicalShellCommand } from '../../src/policies/repeat-guard'
import { anthropic } from '../../src/providers/anthropic'
import { openai } from '../../src/providers/openai'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI } from '../support/fake-openai'

// Whole runs: the real loop, the official SDK clients, and local servers speaking each vendor's SSE.

/** A `shell` stand-in that records each command it really ran. */
function shellTool(ran: string[]) {
  return tool({
    name: 'shell',
    description: 'Run a shell command',
    input: z.object({ command: z.string() }),
    execute: ({ command }) => {
      ran.push(command)
      return 'FAIL src/app.test.ts: expected 2, got 3'
    },
  })
}

let anthropicFake: FakeAnthropic | undefined
let openaiFake: FakeOpenAI | undefined
afterEach(async () => {
  await anthropicFake?.close()
  await openaiFake?.close()
  anthropicFake = undefined
  openaiFake = undefined
})

/** The Anthropic request's last user turn: its tool_result blocks' text. */
function anthropicResults(body: any): string[] {
  const last = body.messages.at(-1)
  return last.content.filter((block: any) => block.type === 'tool_result').map((block: any) =>
    typeof block.content === 'string' ? block.content : block.content.map((part: any) => part.text).join(''))
}

describe('repeat guard over the Anthropic wire', () => {
  it('blocks the 4th identical shell call: the tool does not run, the model reads Blocked, the hook fires with its fields', async () => {
    anthropicFake = await startFakeAnthropic()
    const command = 'npm test -- --run'
    for (let i = 0; i < 5; i++)
      anthropicFake.enqueue({ type: 'turn', turn: { text: 'Running the tests again.', toolCalls: [{ id: `toolu_0${i}`, name: 'shell', input: { command } }], usage: { input_tokens: 50, output_tokens: 10 } } })
    anthropicFake.enqueue({ type: 'turn', turn: { text: 'I am stuck on the same failure.' } })
    const ran: string[] = []
    const fired: RepeatGuardExceededContext[] = []
    const agent = createAgent({
      provider: anthropic({ apiKey: 'test-key', baseURL: anthropicFake.url, defaultModel: 'claude-sonnet-4-6' }),
      tools: { shell: shellTool(ran) },
      behavior: { repeatGuard: {} },
      hooks: { 'repeat-guard:exceeded': ctx => void fired.push(ctx) },
    })
    const stats = await agent.run({ prompt: 'Make the tests pass.' })

    expect(stats.stopReason).toBe('completed')
    expect(ran).toEqual([command, command, command])
    const bodies = anthropicFake.requests.map(request => request.body)
    expect(anthropicResults(bodies[3])).toEqual(['FAIL src/app.test.ts: expected 2, got 3'])
    const [blocked] = anthropicResults(bodies[4])
    expect(blocked).toMatch(/^Blocked: You have made the same shell call 4 times in a row/)
    expect(bodies[4].messages.at(-1).content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_03', is_error: true })
    expect(fired.map(ctx => [ctx.action, ctx.count, ctx.callId])).toEqual([['block', 4, 'toolu_03'], ['block', 5, 'toolu_04']])
    expect(fired[0]).toMatchObject({ runId: expect.any(String), depth: 0, name: 'shell', input: { command }, key: '$ npm test -- --run', threshold: 4, counter: 'chain', message: blocked.slice('Blocked: '.length) })
    await agent.destroy()
  })
})

describe('repeat guard over the Chat Completions wire', () => {
  it('steer: the call runs, and the steering note rides on its tool message in the next request', async () => {
    openaiFake = await startFakeOpenAI()
    for (let i = 0; i < 4; i++)
      openaiFake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: `call_${i}`, name: 'shell', input: { command: `cd /repo && npm test${i % 2 ? ' ; sleep 2' : ''}` } }] } })
    openaiFake.enqueue({ type: 'turn', turn: { text: 'Switching approach.' } })
    const ran: string[] = []
    const agent = createAgent({
      provider: openai({ apiKey: 'test-key', baseURL: openaiFake.url, defaultModel: 'gpt-5.2' }),
      tools: { shell: shellTool(ran) },
      behavior: { repeatGuard: { thresholdAction: 'steer', steeringMessage: (name, count) => `${name} repeated ${count}x: read the failing test first.` } },
    })
    const stats = await agent.run({ prompt: 'Fix it.' })

    expect(stats.stopReason).toBe('completed')
    expect(ran).toHaveLength(4)
    const last = openaiFake.requests.at(-1)!.body.messages.at(-1)
    expect(last).toMatchObject({ role: 'tool', tool_call_id: 'call_3' })
    expect(JSON.stringify(last.content)).toContain('FAIL src/app.test.ts: expected 2, got 3\\n\\nshell repeated 4x: read the failing test first.')
    const third = openaiFake.requests[3].body.messages.at(-1)
    expect(JSON.stringify(third.content)).not.toContain('repeated')
    await agent.destroy()
  })
})

describe('repeat guard: the abort', () => {
  it('ends the run aborted, with the reason on stats.abortReason, the guard hook before agent:abort', async () => {
    const turns: ScriptedTurn[] = Array.from<ScriptedTurn>({ length: 10 }).fill({ toolCalls: [{ name: 'shell', input: { command: 'git status' } }] })
    const order: string[] = []
    const ran: string[] = []
    const agent = createAgent({
      provider: scriptedProvider([...turns, { text: 'never' }]),
      tools: { shell: shellTool(ran) },
      behavior: { repeatGuard: {} },
      hooks: {
        'repeat-guard:exceeded': ({ action }) => void order.push(`guard:${action}`),
        'agent:abort': ({ reason }) => void order.push(`abort:${String(reason)}`),
      },
    })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('aborted')
    expect(stats.abortReason).toBe('Repeat guard: shell was called 8 times with the same input')
    expect(stats.turns).toBe(8)
    expect(ran).toHaveLength(3)
    expect(order).toEqual([...Array.from<string>({ length: 4 }).fill('guard:block'), 'guard:abort', `abort:${stats.abortReason}`])
    await agent.destroy()
  })

  it('stats.abortReason is set for any abort that carries a reason, and absent for a bare cancel', async () => {
    const slow = { toolCalls: [{ name: 'wait', input: {} }] }
    const waitTool = tool({ name: 'wait', description: 'wait', input: z.object({}), execute: (_input, ctx) => new Promise<string>(resolve => ctx.signal.addEventListener('abort', () => resolve('stopped'))) })
    const withReason = createAgent({ provider: scriptedProvider([slow, { text: 'x' }]), tools: { wait: waitTool } })
    const running = withReason.run({ prompt: 'go' })
    setTimeout(() => withReason.abort('the user closed the tab'), 20)
    expect(await running).toMatchObject({ stopReason: 'aborted', abortReason: 'the user closed the tab' })

    const bare = createAgent({ provider: scriptedProvider([slow, { text: 'x' }]), tools: { wait: waitTool } })
    const bareRun = bare.run({ prompt: 'go' })
    setTimeout(() => bare.abort(), 20)
    const bareStats = await bareRun
    expect(bareStats.stopReason).toBe('aborted')
    expect(bareStats).not.toHaveProperty('abortReason')

    const byPolicy = createAgent({
      provider: scriptedProvider([{ text: 'one' }]),
      policies: [definePolicy({ name: 'host-stop', afterTurn: () => ({ decision: { type: 'abort', reason: new Error('quota for today is spent') } }) })],
    })
    expect(await byPolicy.run({ prompt: 'go' })).toMatchObject({ stopReason: 'aborted', abortReason: 'quota for today is spent' })
  })
})

// --- the shell canonicalizer -------------------------------------------------

const word = fc.stringMatching(/^[a-z][a-z0-9_./]{0,7}$/)
const flag = fc.stringMatching(/^-[a-z]{1,3}$/)
const simple = fc.tuple(word, fc.array(word, { maxLength: 3 })).map(([head, args]) => [head, ...args])

describe('canonicalShellCommand (property)', () => {
  it('equivalent spellings of one command map to one key', () => {
    fc.assert(fc.property(
      simple,
      fc.array(fc.tuple(fc.nat({ max: 3 }), flag), { maxLength: 3 }),
      fc.option(word),
      fc.option(fc.tuple(fc.constantFrom(';', '&', '&&'), fc.nat({ max: 30 }))),
      fc.constantFrom(' ', '  ', '\t'),
      (words, flags, cdDir, sleepTail, gap) => {
        const plain = words.join(' ')
        const flagged = [...words]
        for (const [at, f] of flags)
          flagged.splice(1 + (at % words.length), 0, f)
        let spelled = flagged.join(gap)
        if (cdDir !== null)
          spelled = `cd ${cdDir} && ${spelled}`
        if (sleepTail !== null)
          spelled = `${spelled} ${sleepTail[0]} sleep ${sleepTail[1]}`
        expect(canonicalShellCommand(`  ${spelled} `)).toBe(canonicalShellCommand(plain))
      },
    ))
  })

  it('commands with different words keep different keys', () => {
    fc.assert(fc.property(simple, simple, (a, b) => {
      fc.pre(a.join(' ') !== b.join(' ') && a[0] !== 'cd' && b[0] !== 'cd' && a[0] !== 'sleep' && b[0] !== 'sleep')
      expect(canonicalShellCommand(a.join(' '))).not.toBe(canonicalShellCommand(b.join(' ')))
    }))
  })

  it('keeps quoted text and the operators between real commands', () => {
    expect(canonicalShellCommand('grep "a  b" file')).not.toBe(canonicalShellCommand('grep "a b" file'))
    expect(canonicalShellCommand('make && make test')).not.toBe(canonicalShellCommand('make ; make test'))
    expect(canonicalShellCommand('sleep 5')).toBe('sleep 5')
    expect(canonicalShellCommand('cd src')).toBe('cd src')
  })
})
