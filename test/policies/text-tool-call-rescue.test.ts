import type { AfterTurnStep, PolicyScriptStep } from '../../src/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findTextToolCall } from '../../src/policies/text-tool-call-parser'
import { MAX_CONSECUTIVE_TEXT_CALL_RESCUES, textToolCallRescue } from '../../src/policies/text-tool-call-rescue'
import { runPolicyScript } from '../../src/testing'

const TOOLS = ['read_file', 'grep', 'edit']
const isTool = (name: string) => TOOLS.includes(name)
const said = (text: string): AfterTurnStep => ({ phase: 'afterTurn', text })
const native: PolicyScriptStep = { phase: 'afterTurn', content: [{ type: 'text', text: 'reading' }, { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'a' } }], finishReason: 'tool-calls' }

describe('findTextToolCall: the shapes models write', () => {
  it.each([
    ['<tool_call>\n{"name": "read_file", "arguments": {"path": "src/a.ts"}}\n</tool_call>', 'read_file', 'tag'],
    ['Let me look.\n<tool_call>{"name": "grep", "arguments": {"pattern": "x"}}', 'grep', 'tag'],
    ['<function_call>{"name": "edit", "parameters": {}}</function_call>', 'edit', 'tag'],
    ['<function=read_file>{"path": "a.ts"}</function>', 'read_file', 'function-tag'],
    ['<function_calls>\n<invoke name="grep">\n<parameter name="pattern">TODO</parameter>\n</invoke>\n</function_calls>', 'grep', 'invoke'],
    ['{"name": "read_file", "arguments": {"path": "a.ts"}}', 'read_file', 'json'],
    ['I will read it:\n```json\n{"name": "read_file", "parameters": {"path": "a.ts"}}\n```', 'read_file', 'json'],
    ['{"type": "function", "function": {"name": "grep", "arguments": "{\\"pattern\\": \\"x\\"}"}}', 'grep', 'json'],
    ['[{"name": "edit", "input": {"path": "a"}}]', 'edit', 'json'],
    ['read_file(path="src/a.ts")', 'read_file', 'call-expression'],
    ['```\ngrep(pattern: "TODO", path: "src")\n```', 'grep', 'call-expression'],
    ['read_file({"path": "a.ts"})', 'read_file', 'call-expression'],
  ])('%s', (text, name, shape) => {
    expect(findTextToolCall(text, isTool)).toEqual({ name, shape })
  })

  it('a tag with no parsable body still counts, without a name', () => {
    expect(findTextToolCall('<tool_call>read the file</tool_call>', isTool)).toEqual({ shape: 'tag' })
  })

  it.each([
    'I used read_file(path) earlier and grep(pattern) after.',
    'The function read_file(path) returns the file.',
    '{"name": "read_file"}',
    '{"name": "deploy", "arguments": {}}',
    'deploy(env="prod")',
    'Here is the config: {"name": "my-app", "version": "1.0.0"}',
    '```ts\nconst x = grep(lines, /a/)\n```',
    'read_file(a) and edit(b)',
  ])('not a call: %s', (text) => {
    expect(findTextToolCall(text, isTool)).toBeUndefined()
  })

  it('arbitrary prose never matches (property)', () => {
    const word = fc.oneof(
      fc.constantFrom('the', 'file', 'read_file', 'grep', 'edit', 'name', 'arguments', 'call', 'tool', 'json', 'path', '(', ')', '{', '}', ':', '"', ',', '.', '=', '\n', '```'),
      fc.string({ maxLength: 8 }).filter(s => !s.includes('<')),
    )
    const prose = fc.array(word, { maxLength: 40 }).map(words => `Note: ${words.join(' ')}`)
    fc.assert(fc.property(prose, text => findTextToolCall(text, isTool) === undefined), { numRuns: 500 })
  })
})

describe('text-tool-call-rescue', () => {
  it('is off unless set to an object', async () => {
    for (const behavior of [{}, { textToolCallRescue: false as const }])
      expect((await runPolicyScript(textToolCallRescue, { behavior, steps: [] })).enabled).toBe(false)
  })

  it('continues a turn that wrote a call as text, asking for the native call', async () => {
    const { steps } = await runPolicyScript(textToolCallRescue, { behavior: { textToolCallRescue: { mode: 'steer' } }, tools: TOOLS, steps: [said('<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>')] })
    expect(steps[0]).toMatchObject({ phase: 'afterTurn', keepGoing: true, messages: [{ injected: 'text-tool-call-rescue' }] })
    const text = steps[0].phase === 'afterTurn' ? steps[0].messages[0].content[0] : undefined
    expect(text).toMatchObject({ origin: 'injected', text: expect.stringContaining('wrote a call to `read_file` as text, so nothing ran') })
    expect(text).toMatchObject({ text: expect.stringContaining('Tools offered: read_file, grep, edit.') })
  })

  it('leaves plain answers, turns with native calls, and turns another policy ends or continues', async () => {
    const { steps } = await runPolicyScript(textToolCallRescue, {
      behavior: { textToolCallRescue: {} },
      tools: TOOLS,
      steps: [
        said('All done. I used read_file(path) to check.'),
        native,
        { ...said('read_file(path="a")'), decided: { stop: 'max-turns' } },
        { ...said('read_file(path="a")'), decided: { continues: true } },
      ],
    })
    expect(steps.map(step => step.phase === 'afterTurn' && step.messages.length)).toEqual([0, 0, 0, 0])
  })

  it(`rescues at most ${MAX_CONSECUTIVE_TEXT_CALL_RESCUES} turns in a row; a native call resets the count`, async () => {
    const call = said('grep(pattern="x")')
    const { steps } = await runPolicyScript(textToolCallRescue, { behavior: { textToolCallRescue: {} }, tools: TOOLS, steps: [call, call, call, native, call] })
    expect(steps.map(step => step.phase === 'afterTurn' && step.keepGoing)).toEqual([true, true, false, false, true])
  })
})
