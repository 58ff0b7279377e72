import type { AgentBehavior, SessionTurn, ToolDef } from '../../src'
import type { FakeAnthropic, RecordedRequest, ScriptedAnthropicTurn } from '../support/fake-anthropic'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { anthropic } from '../../src/providers/anthropic'
import { createSession } from '../../src/session'
import { readFile, shell } from '../../src/tools'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { echoTool } from '../support/helpers'

// Every nudge goes through the real Anthropic provider (official SDK) to the fake Messages server:
// it must reach the model as one injected user turn at the next boundary, be marked injected in the
// session, and leave the request before it a byte-prefix of the next one.

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(() => fake.close())

const usage = { input_tokens: 40, output_tokens: 12 }

async function run(turns: ScriptedAnthropicTurn[], behavior: AgentBehavior, tools: Record<string, ToolDef>, cwd?: string) {
  for (const turn of turns) fake.enqueue({ type: 'turn', turn: { usage, ...turn } })
  const session = await createSession()
  const provider = anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' })
  const agent = createAgent({ provider, tools, session, behavior, system: 'Be brief.', ...(cwd ? { execution: createProcessContext({ cwd }) } : {}) })
  const stats = await agent.run({ prompt: 'fix the bug' })
  await agent.destroy()
  return { stats, turns: session.turns as readonly SessionTurn[] }
}

const strip = (value: unknown) => JSON.stringify(value, (key, inner) => key === 'cache_control' ? undefined : inner)

/** A request's units as they can only grow: system, tools, then each message block with its role. */
function units(request: RecordedRequest): string[] {
  const body = request.body as { system: unknown, tools: unknown, messages: { role: string, content: string | unknown[] }[] }
  return [strip(body.system), strip(body.tools), ...body.messages.flatMap(message =>
    (typeof message.content === 'string' ? [message.content] : message.content).map(block => `${message.role}:${strip(block)}`))]
}

function expectPrefixes(requests: readonly RecordedRequest[]): void {
  for (let n = 0; n + 1 < requests.length; n++) {
    const before = units(requests[n])
    expect(units(requests[n + 1]).slice(0, before.length), `request ${n + 1} is a prefix of request ${n + 2}`).toEqual(before)
  }
}

/** The text blocks of the last user message of a request. */
function lastUserTexts(request: RecordedRequest): string[] {
  const messages = (request.body as { messages: { role: string, content: { type: string, text?: string }[] }[] }).messages
  const last = messages.at(-1)!
  expect(last.role).toBe('user')
  return last.content.filter(block => block.type === 'text').map(block => block.text!)
}

describe('nudges end to end (Anthropic wire)', () => {
  it('three nudges of one turn and the max-turns warning join one injected user turn, after the tool results', async () => {
    const { stats, turns } = await run(
      [
        { thinking: { text: 'Let me think about this for a long while. '.repeat(20), signature: 'sig-1' }, toolCalls: [{ id: 'toolu_01', name: 'readFile', input: { path: 'a.ts' } }] },
        { text: 'Done: the bug is fixed.' },
      ],
      { maxTurns: 3, maxTurnsWarning: 2, unknownToolRecovery: {}, progressNudges: { toolErrors: 1 }, thinkingOverrunPolicy: { thresholdTokens: 50 } },
      { read_file: echoTool('read_file'), edit: echoTool('edit') },
    )
    expect(stats.stopReason).toBe('completed')
    expect(fake.requests).toHaveLength(2)
    const second = fake.requests[1].body as { messages: { role: string, content: { type: string, is_error?: boolean }[] }[] }
    const last = second.messages.at(-1)!
    // The tool result stays an error; the nudges follow it in the same user message.
    expect(last.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01', is_error: true })
    const texts = lastUserTexts(fake.requests[1])
    expect(texts).toHaveLength(4)
    expect(texts[0]).toMatch(/2 turns left/)
    expect(texts[1]).toBe('There is no tool named "readFile". Did you mean "read_file"? Call the tool you meant by its exact name.')
    expect(texts[2]).toBe('The last 1 tool calls failed. Read the errors and change the approach instead of repeating it.')
    expect(texts[3]).toMatch(/^The last turn spent about \d+ tokens thinking\./)
    expectPrefixes(fake.requests)

    const injected = turns.filter(turn => turn.injected)
    expect(injected).toHaveLength(1)
    expect(injected[0]).toMatchObject({ role: 'user', injected: 'max-turns-warning' })
    expect(injected[0].content.map(block => block.type === 'text' && block.origin)).toEqual(['injected', 'injected', 'injected', 'injected'])
  })

  it('a textual tool call is never run: the run continues with one injected steer, and the model then calls natively', async () => {
    let reads = 0
    const read: ToolDef = { ...echoTool('read_file'), execute: () => `read ${++reads}` }
    const { stats, turns } = await run(
      [
        { text: 'I will read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>' },
        { toolCalls: [{ id: 'toolu_02', name: 'read_file', input: { path: 'a.ts' } }] },
        { text: 'It says hello.' },
      ],
      { textToolCallRescue: {} },
      { read_file: read },
    )
    expect(stats.stopReason).toBe('completed')
    expect(fake.requests).toHaveLength(3)
    expect(reads).toBe(1)
    expect(lastUserTexts(fake.requests[1])).toEqual([expect.stringContaining('wrote a call to `read_file` as text, so nothing ran')])
    expectPrefixes(fake.requests)
    const injected = turns.filter(turn => turn.injected)
    expect(injected).toHaveLength(1)
    expect(injected[0]).toMatchObject({ role: 'user', injected: 'text-tool-call-rescue' })
  })

  it('a shell pointer is part of the recorded result, so every later request keeps its bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zidane-nudges-e2e-'))
    writeFileSync(join(dir, 'a.txt'), 'hello\n')
    const { turns } = await run(
      [
        { toolCalls: [{ id: 'toolu_03', name: 'shell', input: { command: 'cat a.txt' } }] },
        { toolCalls: [{ id: 'toolu_04', name: 'shell', input: { command: 'cat a.txt' } }] },
        { toolCalls: [{ id: 'toolu_05', name: 'shell', input: { command: 'cat a.txt' } }] },
        { text: 'ok' },
      ],
      { shellToolNudges: { maxPerKind: 1 } },
      { shell, read_file: readFile },
      dir,
    )
    expect(fake.requests).toHaveLength(4)
    const results = turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result')
    expect(results.map(block => String(block.output).includes('[tip: `read_file`'))).toEqual([true, false, false])
    expect(String(results[0].output)).toMatch(/^hello\n[\s\S]*\n\[tip: `read_file` reads files with line numbers and paging; prefer it to shell for plain file reads\.\]$/)
    expectPrefixes(fake.requests)
    expect(turns.filter(turn => turn.injected)).toHaveLength(0)
  })
})

describe('nudges and parallel calls', () => {
  it('every unknown name of a parallel batch is counted, although the results arrive together', async () => {
    const { turns } = await run(
      [
        { toolCalls: [{ id: 'toolu_06', name: 'Grep', input: {} }, { id: 'toolu_07', name: 'readFile', input: {} }, { id: 'toolu_08', name: 'Edit', input: {} }] },
        { text: 'ok' },
      ],
      { unknownToolRecovery: {} },
      { read_file: echoTool('read_file'), grep: echoTool('grep'), edit: echoTool('edit') },
    )
    expect(lastUserTexts(fake.requests[1]).map(text => /named "(\w+)"/.exec(text)![1])).toEqual(['Grep', 'readFile', 'Edit'])
    expect(turns.filter(turn => turn.injected)).toHaveLength(1)
  })
})
