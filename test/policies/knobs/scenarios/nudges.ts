import type { AgentBehavior, ToolDef } from '../../../../src'
import type { NudgeKnobs } from '../../../../src/knobs/nudge-knobs'
import type { ScriptedTurn } from '../../../../src/testing'
import type { SliceScenarios } from '../harness'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from '../../../../src'
import { createProcessContext } from '../../../../src/contexts'
import { scriptedProvider } from '../../../../src/testing'
import { readFile, shell } from '../../../../src/tools'
import { echoTool, injectedTexts } from '../../../support/helpers'

/** Tools the scripts call: read-only, plain, failing, no-op edits, and one with a required argument. */
const TOOLS: Record<string, ToolDef> = {
  read_file: echoTool('read_file'),
  read_many: echoTool('read_many'),
  read_dir: echoTool('read_dir'),
  a: echoTool('a'),
  boom: echoTool('boom', { execute: () => { throw new Error('it broke') } }),
  edit: echoTool('edit', { execute: () => { throw new Error('old_string not found') } }),
  multi_edit: echoTool('multi_edit', {
    execute: (_input, ctx) => {
      ctx.reportOutcome('noop')
      return 'No change needed: the file already has this content.'
    },
  }),
  needs_path: echoTool('needs_path', { spec: { name: 'needs_path', description: 'needs a path', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }),
}

/** Run `turns` (each a list of calls), then a closing text; return the provider's requests. */
async function nudgeRun(behavior: AgentBehavior, turns: ScriptedTurn[]) {
  const provider = scriptedProvider([...turns, { text: 'done' }])
  const agent = createAgent({ provider, tools: TOOLS, behavior })
  await agent.run({ prompt: 'go' })
  await agent.destroy()
  return provider.requests
}

/** The injected texts the model was sent by the end of the run. */
async function nudgesSent(behavior: AgentBehavior, turns: ScriptedTurn[]): Promise<string[]> {
  const requests = await nudgeRun(behavior, turns)
  return injectedTexts(requests.at(-1)!.messages)
}

function calling(name: string, times: number, input: Record<string, unknown> = {}): ScriptedTurn[] {
  return Array.from({ length: times }, (_, i) => ({ toolCalls: [{ name, input: { ...input, i } }] }))
}

/** Shell runs in a directory holding `a.txt`, with `read_file` advertised. */
async function shellPointers(behavior: AgentBehavior, times: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-knobs-nudges-'))
  writeFileSync(join(dir, 'a.txt'), 'hello\n')
  const provider = scriptedProvider([...Array.from<ScriptedTurn>({ length: times }).fill({ toolCalls: [{ name: 'shell', input: { command: 'cat a.txt' } }] }), { text: 'done' }])
  const agent = createAgent({ provider, tools: { shell, read_file: readFile }, execution: createProcessContext({ cwd: dir }), behavior })
  await agent.run({ prompt: 'go' })
  await agent.destroy()
  const results = provider.requests.at(-1)!.messages.flatMap(message => message.content).filter(block => block.type === 'tool_result')
  return results.filter(block => typeof block.output === 'string' && block.output.includes('[tip: `read_file`')).length
}

const recoveryOn = (behavior: AgentBehavior): AgentBehavior => ({ unknownToolRecovery: behavior.unknownToolRecovery ?? {} })
function progressOn(extra: Record<string, unknown>) {
  return (behavior: AgentBehavior): AgentBehavior =>
    ({ progressNudges: { ...extra, ...(behavior.progressNudges || {}) } })
}
const overrunOn = (behavior: AgentBehavior): AgentBehavior => ({ thinkingOverrunPolicy: behavior.thinkingOverrunPolicy ?? {} })
const thinkingTurn = (tokens: number): ScriptedTurn[] => [{ thinking: 'pondering', usage: { thinking: tokens }, toolCalls: [{ name: 'a', input: {} }] }]

export const nudgeScenarios: SliceScenarios<NudgeKnobs> = {
  unknownToolRecovery: {
    value: {},
    outcome: behavior => nudgesSent(behavior, calling('readFile', 1)),
    unset: [],
    set: ['There is no tool named "readFile". Did you mean "read_file"? Call the tool you meant by its exact name.'],
    fields: {
      maxNudges: {
        value: 1,
        outcome: async behavior => (await nudgesSent(recoveryOn(behavior), [...calling('nope', 1), ...calling('nada', 1), ...calling('zilch', 1)])).length,
        unset: 3,
        set: 1,
      },
      maxSuggestions: {
        value: 1,
        outcome: async behavior => (await nudgesSent(recoveryOn(behavior), calling('read', 1)))[0],
        unset: 'There is no tool named "read". Did you mean "read_file" or "read_many" or "read_dir"? Call the tool you meant by its exact name.',
        set: 'There is no tool named "read". Did you mean "read_file"? Call the tool you meant by its exact name.',
      },
      message: {
        value: ({ called, suggestions }: { called: string, suggestions: readonly string[] }) => `${called} -> ${suggestions.join('|')}`,
        outcome: async behavior => (await nudgesSent(recoveryOn(behavior), calling('readFile', 1)))[0],
        unset: 'There is no tool named "readFile". Did you mean "read_file"? Call the tool you meant by its exact name.',
        set: 'readFile -> read_file',
      },
      mode: { value: 'steer', unset: [], set: ['There is no tool named "readFile". Did you mean "read_file"? Call the tool you meant by its exact name.'] },
    },
  },
  textToolCallRescue: {
    value: {},
    outcome: async behavior => (await nudgeRun(behavior, [{ text: '<tool_call>{"name": "a", "arguments": {}}</tool_call>' }])).length,
    unset: 1,
    set: 2,
    fields: {
      mode: { value: 'steer', unset: 1, set: 2 },
    },
  },
  shellToolNudges: {
    value: true,
    outcome: behavior => shellPointers(behavior, 3),
    unset: 0,
    set: 2,
    fields: {
      maxPerKind: { value: 1, outcome: behavior => shellPointers({ shellToolNudges: behavior.shellToolNudges ?? true }, 3), unset: 2, set: 1 },
    },
  },
  progressNudges: {
    // Every pattern is off until given a threshold: the object turns on the patterns it names.
    value: { readOnlyTurns: 6 },
    outcome: async behavior => (await nudgesSent(behavior, calling('read_file', 6))).length,
    unset: 0,
    set: 1,
    fields: {
      readOnlyTurns: { value: 2, outcome: async behavior => (await nudgesSent(progressOn({})(behavior), calling('read_file', 3))).length, unset: 0, set: 1 },
      failedMutations: { value: 2, outcome: async behavior => (await nudgesSent(progressOn({})(behavior), calling('edit', 2))).length, unset: 0, set: 1 },
      noopMutations: { value: 2, outcome: async behavior => (await nudgesSent(progressOn({})(behavior), calling('multi_edit', 2))).length, unset: 0, set: 1 },
      validationRejects: { value: 2, outcome: async behavior => (await nudgesSent(progressOn({})(behavior), calling('needs_path', 2))).length, unset: 0, set: 1 },
      toolErrors: { value: 2, outcome: async behavior => (await nudgesSent(progressOn({})(behavior), calling('boom', 3))).length, unset: 0, set: 1 },
      singleCallTurns: { value: 2, outcome: async behavior => (await nudgesSent(progressOn({})(behavior), calling('a', 2))).length, unset: 0, set: 1 },
      maxNudges: { value: 1, outcome: async behavior => (await nudgesSent(progressOn({ toolErrors: 1 })(behavior), calling('boom', 4))).length, unset: 3, set: 1 },
      messages: {
        value: { readOnlyTurns: ({ count, kind }: { count: number, kind: string }) => `${kind} x${count}` },
        outcome: behavior => nudgesSent(progressOn({ readOnlyTurns: 1 })(behavior), calling('read_file', 1)),
        unset: ['The last 1 turns only read and searched. If you know enough, make the change now; if not, say what is still missing.'],
        set: ['readOnlyTurns x1'],
      },
      readOnlyTools: { value: ['a'], outcome: async behavior => (await nudgesSent(progressOn({ readOnlyTurns: 2 })(behavior), calling('a', 2))).length, unset: 0, set: 1 },
      // The only mode: set beside a threshold, the nudge arrives as a steer on the next user turn.
      mode: { value: 'steer', outcome: async behavior => (await nudgesSent(behavior.progressNudges ? { progressNudges: { ...behavior.progressNudges, readOnlyTurns: 2 } } : {}, calling('read_file', 2))).length, unset: 0, set: 1 },
    },
  },
  thinkingOverrunPolicy: {
    value: 'steer-next-turn',
    outcome: async behavior => (await nudgesSent(behavior, thinkingTurn(9_000))).length,
    unset: 0,
    set: 1,
    fields: {
      message: { value: 'THINK LESS', outcome: behavior => nudgesSent(overrunOn(behavior), thinkingTurn(9_000)), unset: ['The last turn spent about 9000 tokens thinking. Act on what you already know: take the next concrete step now, and keep the reasoning before each step short.'], set: ['THINK LESS'] },
      mode: { value: 'off', outcome: async behavior => (await nudgesSent(overrunOn(behavior), thinkingTurn(9_000))).length, unset: 1, set: 0 },
      thresholdTokens: { value: 500, outcome: async behavior => (await nudgesSent(overrunOn(behavior), thinkingTurn(1_000))).length, unset: 0, set: 1 },
    },
  },
}
