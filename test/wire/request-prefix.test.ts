import type { SessionContentBlock, SessionTurn } from '../../src/core/content'
import type { StreamOptions } from '../../src/providers/types'
import type { ScriptedTurn } from '../../src/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, filterUnresolvedToolUses } from '../../src'
import { buildAnthropicRequest } from '../../src/providers/anthropic'
import { buildChatRequest } from '../../src/providers/openai-chat'
import { openaiCompatDialect } from '../../src/providers/openai-compat'
import { buildResponsesRequest } from '../../src/providers/openai/responses/wire'
import { createSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { dialect } from '../providers/openai-chat-fixtures'
import { echoTool } from '../support/helpers'

// Request N's messages, serialized by each real wire builder, are a prefix of
// request N+1's: appending turns never changes an earlier byte. The one thing
// allowed to move is the prompt-cache breakpoint (`cache_control`), which
// marks the last message; it is taken out before comparing. The units
// compared are what a builder may extend: Anthropic merges a message into the
// previous one of the same role, so its unit is one block (with its role);
// the OpenAI builders' unit is one wire message or input item.

/** Each request's units, per builder. */
interface Serialized { anthropic: string[], chat: string[], chatCached: string[], responses: string[] }

const strip = (value: unknown) => JSON.stringify(value, (key, inner) => key === 'cache_control' ? undefined : inner)
const cachedDialect = openaiCompatDialect({ cacheBreakpoints: true })

function serialize(request: StreamOptions): Serialized {
  const anthropic = buildAnthropicRequest({ ...request, model: 'claude-sonnet-4-6' }).body
  const chat = buildChatRequest({ ...request, model: 'gpt-5.2' }, dialect())
  const chatCached = buildChatRequest({ ...request, model: 'gpt-5.2' }, cachedDialect)
  const responses = buildResponsesRequest({ ...request, model: 'gpt-5.2' }, { providerName: 'openai' })
  return {
    anthropic: [strip(anthropic.system), strip(anthropic.tools), ...anthropic.messages.flatMap(message =>
      (typeof message.content === 'string' ? [message.content] : message.content).map(block => `${message.role}:${strip(block)}`))],
    chat: [strip(chat.tools), ...chat.messages.map(strip)],
    chatCached: [strip(chatCached.tools), ...chatCached.messages.map(strip)],
    responses: [strip(responses.instructions), strip(responses.tools), ...responses.input.map(strip)],
  }
}

/** The first request (by builder) whose units are not a prefix of the next one's, or undefined. */
function firstBreak(requests: readonly Serialized[]): string | undefined {
  for (let n = 0; n + 1 < requests.length; n++) {
    for (const key of Object.keys(requests[n]) as (keyof Serialized)[]) {
      const before = requests[n][key]
      const after = requests[n + 1][key]
      const at = before.findIndex((unit, i) => after[i] !== unit)
      if (at >= 0 || after.length < before.length)
        return `${key}: request ${n + 1} unit ${at} ${before[at]} became ${after[at]}`
    }
  }
  return undefined
}

const text = (value: string): SessionContentBlock => ({ type: 'text', text: value })

// A recorded history that needs repairs (an orphan result, a call never answered, a duplicate result, a call
// reusing an id): its repairs are fixed once the history is, so they must not move as the run appends.
const oldId = fc.constantFrom('old_a', 'old_b', 'old_c')
const oldBlock: fc.Arbitrary<SessionContentBlock> = fc.oneof(
  fc.string({ maxLength: 6 }).map(text),
  fc.tuple(oldId, fc.constantFrom('read_file', 'echo')).map(([id, name]) => ({ type: 'tool_call' as const, id, name, input: { id } })),
  oldId.map(callId => ({ type: 'tool_result' as const, callId, output: `was ${callId}` })),
)
const historyArb = fc.array(fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), content: fc.array(oldBlock, { minLength: 1, maxLength: 3 }) }), { maxLength: 5 })

// Loop-shaped runs: each step calls one to three tools (under their wire names), the last step answers in text.
const stepArb = fc.record({
  thinking: fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined }),
  text: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
  calls: fc.array(fc.record({ name: fc.constantFrom('Read', 'echo'), input: fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }) }), { minLength: 1, maxLength: 3 }),
})
const runArb = fc.record({ prompt: fc.string({ maxLength: 8 }).map(value => `ask ${value}`), steps: fc.array(stepArb, { maxLength: 4 }), final: fc.string({ maxLength: 6 }) })

type RunScript = typeof runArb extends fc.Arbitrary<infer T> ? T : never

function historyTurns(history: { role: SessionTurn['role'], content: SessionContentBlock[] }[]): SessionTurn[] {
  return history.map((message, i) => ({ id: `old-${i}`, createdAt: 0, ...message }))
}

/** Play the runs on one agent and session; per run, every request's units, serialized the moment it was sent. */
async function playRuns(history: { role: SessionTurn['role'], content: SessionContentBlock[] }[], runs: RunScript[], transform?: (messages: { content: SessionContentBlock[] }[], turn: number) => void): Promise<Serialized[][]> {
  const sent: Serialized[][] = []
  const script: ScriptedTurn[] = runs.flatMap(run => [
    ...run.steps.map(step => ({ thinking: step.thinking, text: step.text, toolCalls: step.calls.map(c => ({ name: c.name, input: c.input as Record<string, unknown> })) })),
    { text: run.final },
  ]).map(turn => ({ respond: (request: StreamOptions) => {
    sent.at(-1)!.push(serialize(request))
    return turn
  } }))
  const session = await createSession()
  await session.appendTurns(historyTurns(history))
  const provider = scriptedProvider(script)
  const agent = createAgent({ provider, session, toolAliases: { read_file: 'Read' }, tools: { read_file: echoTool('read_file'), echo: echoTool('echo') } })
  let turn = 0
  if (transform)
    agent.hooks.hook('context:transform', ctx => transform(ctx.messages, ++turn))
  for (const run of runs) {
    sent.push([])
    await agent.run({ prompt: run.prompt })
  }
  return sent
}

describe('the request prefix, through the loop and every wire builder', () => {
  it('request N is a byte prefix of request N+1, for random histories and runs', async () => {
    await fc.assert(fc.asyncProperty(historyArb, fc.array(runArb, { minLength: 1, maxLength: 2 }), async (history, runs) => {
      const sent = await playRuns(history, runs)
      expect(sent.map(requests => requests.length)).toEqual(runs.map(run => run.steps.length + 1))
      for (const requests of sent)
        expect(firstBreak(requests)).toBeUndefined()
      // From one run to the next too, except where the first run resumed a history ending in unanswered
      // calls: that run takes them back (`filterUnresolvedToolUses`), and the next run sends them, repaired.
      const turns = historyTurns(history)
      if (filterUnresolvedToolUses(turns).length === turns.length && filterUnresolvedToolUses(turns).every((t, i) => t === turns[i]))
        expect(firstBreak(sent.flat())).toBeUndefined()
    }), { numRuns: 100 })
  })

  it('the check sees a hook that rewrites an earlier message', async () => {
    const runs: RunScript[] = [{ prompt: 'go', steps: [{ thinking: undefined, text: 'a', calls: [{ name: 'echo', input: {} }] }], final: 'done' }]
    expect(firstBreak((await playRuns([], runs))[0])).toBeUndefined()
    const stamped = await playRuns([], runs, (messages, turn) => {
      messages[0] = { ...messages[0], content: [text(`turn ${turn}`), ...messages[0].content] } as typeof messages[0]
    })
    expect(firstBreak(stamped[0])).toMatch(/^anthropic: request 1 unit 2 /)
  })
})
