import type { AgentBehavior, AgentHookMap, ToolDef } from '../../../src'
import type { ToolResultBlock } from '../../../src/core/content'
import type { ScriptedTurn } from '../../../src/testing'
import { createAgent } from '../../../src'
import { createSession } from '../../../src/session'
import { scriptedProvider } from '../../../src/testing'

/** `lookup { id }`: answers a JSON record for the id, counting its runs. */
export function lookupTool(): { def: ToolDef, runs: () => number } {
  let runs = 0
  return {
    runs: () => runs,
    def: {
      spec: {
        name: 'lookup',
        description: 'Look up a record by id. Returns JSON with the id and its price.',
        inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false },
      },
      isConcurrencySafe: true,
      execute: (input: { id: number }) => {
        runs++
        return JSON.stringify({ id: input.id, price: input.id * 10 })
      },
    },
  }
}

/** `greet { name }`: answers plain text. */
export const greetTool: ToolDef = {
  spec: { name: 'greet', description: 'Greet someone by name.', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  execute: (input: { name: string }) => `Hello, ${input.name}!`,
}

/** `fail_tool {}`: always throws. */
export const failTool: ToolDef = {
  spec: { name: 'fail_tool', description: 'Always fails.', inputSchema: { type: 'object' } },
  execute: () => {
    throw new Error('the tool broke')
  },
}

export interface CodemodeRunOptions {
  behavior?: AgentBehavior
  tools?: Record<string, ToolDef>
  hooks?: AgentHookMap
  /** Turns after the codemode call (default: one text turn). */
  after?: ScriptedTurn[]
}

/** One run where the model's first turn calls `codemode` with `code`; returns the result block and what was sent. */
export async function runCodemode(code: string, options: CodemodeRunOptions = {}) {
  const provider = scriptedProvider([{ toolCalls: [{ id: 'call_c', name: 'codemode', input: { code } }] }, ...(options.after ?? [{ text: 'done' }])])
  const session = await createSession()
  const lookup = lookupTool()
  const agent = createAgent({
    provider,
    session,
    tools: { lookup: lookup.def, greet: greetTool, fail_tool: failTool, ...options.tools },
    behavior: { codemode: true, ...options.behavior },
    hooks: options.hooks,
  })
  const stats = await agent.run({ prompt: 'go' })
  await agent.destroy()
  const results = session.turns.flatMap(turn => turn.content.filter((block): block is ToolResultBlock => block.type === 'tool_result'))
  const result = results.find(block => block.callId === 'call_c')!
  return { result, results, stats, provider, session, lookup, text: typeof result.output === 'string' ? result.output : '' }
}
