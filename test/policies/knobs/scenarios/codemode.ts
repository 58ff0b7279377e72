import type { AgentBehavior, ToolDef } from '../../../../src'
import type { CodemodeConfig, CodemodeKnobs } from '../../../../src/knobs/codemode-knobs'
import type { ScriptedTurn } from '../../../../src/testing'
import type { SliceScenarios } from '../harness'
import { createAgent } from '../../../../src'
import { createSession } from '../../../../src/session'
import { scriptedProvider } from '../../../../src/testing'

const greet: ToolDef = {
  spec: { name: 'greet', description: 'Greet someone by name.', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
  execute: (input: { name?: string }) => `Hello, ${input.name ?? 'you'}!`,
}

/** A tool as an MCP server lends it, so `toolDisclosure: 'lazy'` holds it back for the catalog. */
const stock: ToolDef = {
  spec: { name: 'mcp_shop_stock', description: 'Stock level of a product.', inputSchema: { type: 'object' } },
  mcp: { server: 'shop', tool: 'stock' },
  execute: () => '3',
}

/** The behavior with codemode on and the scenario's fields over `base` (a field scenario sets only its field). */
function withCodemode(behavior: AgentBehavior, base: CodemodeConfig = {}): AgentBehavior {
  const own = typeof behavior.codemode === 'object' ? behavior.codemode : {}
  return { ...behavior, codemode: { ...base, ...own } }
}

/** One run where the model's turns are `turns`; returns the requests and the recorded tool results. */
async function play(behavior: AgentBehavior, turns: ScriptedTurn[], hooks?: Parameters<typeof createAgent>[0]['hooks']) {
  const provider = scriptedProvider([...turns, { text: 'done' }])
  const session = await createSession()
  const agent = createAgent({ provider, session, tools: { greet, stock }, behavior, hooks })
  await agent.run({ prompt: 'go' })
  await agent.destroy()
  const results = session.turns.flatMap(turn => turn.content.flatMap(block => block.type === 'tool_result' && typeof block.output === 'string' ? [block.output] : []))
  return { requests: provider.requests, results }
}

const script = (code: string): ScriptedTurn[] => [{ toolCalls: [{ id: 'c', name: 'codemode', input: { code } }] }]

export const codemodeScenarios: SliceScenarios<CodemodeKnobs> = {
  codemode: {
    value: true,
    outcome: async behavior => (await play(behavior, [])).requests[0].tools.some(tool => tool.name === 'codemode'),
    unset: false,
    set: true,
    fields: {
      mode: {
        value: 'only',
        outcome: async behavior => (await play(withCodemode(behavior), [])).requests[0].tools.map(tool => tool.name),
        unset: ['greet', 'mcp_shop_stock', 'codemode'],
        set: ['codemode'],
      },
      catalog: {
        value: 'full',
        outcome: async behavior => String((await play(withCodemode({ ...behavior, toolDisclosure: 'lazy' }), [])).requests[0].system).includes('Stock level of a product.'),
        unset: false,
        set: true,
      },
      directCallNotes: {
        value: false,
        outcome: async behavior => (await play(withCodemode(behavior, { mode: 'only' }), [{ toolCalls: [{ id: 'g', name: 'greet', input: { name: 'a' } }] }])).results[0].includes('[codemode]'),
        unset: true,
        set: false,
      },
      inlineBudget: {
        value: 1,
        outcome: async behavior => (await play(withCodemode(behavior, { mode: 'only' }), [])).requests[0].tools[0].description.includes('tools.greet({'),
        unset: true,
        set: false,
      },
      streamProgress: {
        value: true,
        outcome: async (behavior) => {
          let reports = 0
          await play(withCodemode(behavior), script('console.log("hi")'), { 'tool:progress': () => void reports++ })
          return reports > 0
        },
        unset: false,
        set: true,
      },
      timeoutMs: {
        value: 100,
        outcome: async behavior => (await play(withCodemode(behavior), script('const end = Date.now() + 800; while (Date.now() < end) {} return "done"'))).results[0],
        unset: 'Returned: "done"',
        set: 'Error: the script was stopped by its time limit (100 ms).',
      },
      memoryLimitBytes: {
        value: 8 * 1024 * 1024,
        outcome: async behavior => (await play(withCodemode(behavior), script('const parts = []; for (let i = 0; i < 24; i++) parts.push("x".repeat(1 << 20) + i); return parts.length'))).results[0].includes('out of memory'),
        unset: false,
        set: true,
      },
    },
  },
}
