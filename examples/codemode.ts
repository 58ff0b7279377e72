/**
 * Codemode: the model writes one script that calls many tools.
 *
 *   node --import tsx examples/codemode.ts
 *
 * With `behavior.codemode`, the agent gets a `codemode` tool: the model sends
 * the body of an async JavaScript function, which runs in a QuickJS sandbox
 * (the optional peer `quickjs-wasi`) on a worker thread. Inside, every tool
 * of the run is `tools.<name>(args)`; each such call takes the path a direct
 * call takes (gates, hooks, budgets), and only what the script prints and
 * returns goes back to the model. Here a script sums twenty orders in one
 * step, and a `tool:gate` refuses one of them: the script catches that.
 *
 * With ANTHROPIC_API_KEY set, Claude writes the script. Without it, the script
 * is scripted; the sandbox, the tool and the gate are real either way.
 */
import type { Provider } from 'zidane'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const getOrder = tool({
  name: 'get_order',
  description: 'Fetch one order by id: its status, customer and total in dollars (JSON).',
  input: z.object({ id: z.number().int() }),
  execute: ({ id }) => JSON.stringify({ id, status: id % 3 === 0 ? 'shipped' : 'processing', customer: `Customer ${id}`, total: 100 + id * 7 }),
})

/** Where the offline model reads the sum in the script's result. */
const TOTAL_FIELD = /\\"total\\":(\d+)/

const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted; the sandbox, the tool and the gate are real.\n')

const agent = createAgent({
  provider: live ? anthropic() : offlineModel(),
  tools: { get_order: getOrder },
  // 'only': get_order leaves the tools array and is declared inside codemode's description.
  behavior: { codemode: { mode: 'only', streamProgress: true, timeoutMs: 10_000 } },
})

// Gates apply inside scripts: order 13 is refused, and the script's call rejects.
agent.hooks.hook('tool:gate', (ctx) => {
  if (ctx.name === 'get_order' && ctx.input.id === 13) {
    ctx.block = true
    ctx.reason = 'order 13 is under audit'
  }
})
agent.hooks.hook('tool:progress', (ctx) => {
  if (ctx.kind === 'print')
    console.log(`  [script line ${ctx.line}] ${ctx.text}`)
})
agent.hooks.hook('tool:after', ({ name, result, parentToolCallId, scriptLine }) => {
  if (parentToolCallId === undefined)
    console.log(`${name} returned:\n${String(result)}\n`)
  else if (name === 'get_order' && scriptLine !== undefined)
    process.stdout.write('.')
})

const stats = await agent.run({ prompt: 'What is the total of orders 1 to 20? Skip any order you may not read.' })
console.log(`answer: ${stats.text}`)
console.log(`turns: ${stats.turns}`)
await agent.destroy()

/** Without a key: one script, then an answer read from what the script returned. */
function offlineModel(): Provider {
  const code = [
    'let total = 0',
    'const skipped = []',
    'for (let id = 1; id <= 20; id++) {',
    '  try {',
    '    total += (await tools.get_order({ id })).total',
    '  } catch (error) {',
    '    skipped.push(id)',
    '    console.log("skipped " + id + ": " + error.message)',
    '  }',
    '}',
    'return { total, skipped }',
  ].join('\n')
  return scriptedProvider([
    { toolCalls: [{ name: 'codemode', input: { code } }] },
    {
      respond: (request) => {
        const last = JSON.stringify(request.messages.at(-1)?.content ?? '')
        const total = TOTAL_FIELD.exec(last)?.[1] ?? '?'
        return { text: `The total of the orders I could read is ${total} dollars (order 13 is under audit).` }
      },
    },
  ])
}
