/**
 * Quickstart: an agent with one real tool.
 *
 *   npm run example
 *
 * With ANTHROPIC_API_KEY set, this talks to Claude. Without it, it runs
 * offline on zidane's scripted provider: the model's words are scripted, but
 * the tool really runs, and its real output flows back through the loop.
 */
import type { Provider } from 'zidane'
import { readFile } from 'node:fs/promises'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const packageJsonPath = new URL('../package.json', import.meta.url)

// A real tool: reads one top-level field of this project's package.json.
const readPackageField = tool({
  name: 'read_package_field',
  description: 'Read one top-level field of the project\'s package.json and return it as JSON.',
  input: z.object({ field: z.string().describe('Top-level key, e.g. "name" or "engines"') }),
  isConcurrencySafe: true,
  async execute({ field }) {
    const pkg = JSON.parse(await readFile(packageJsonPath, 'utf8')) as Record<string, unknown>
    if (!(field in pkg))
      throw new Error(`package.json has no "${field}" field`)
    return JSON.stringify(pkg[field])
  },
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
const provider: Provider = live ? anthropic() : offlineModel()

if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted, the tool is real.\n')

const agent = createAgent({
  provider,
  tools: { readPackageField },
  system: 'You answer questions about the project in the current directory. Use your tools; be brief.',
  behavior: { maxTurns: 6 },
})

let midLine = false
agent.hooks.hook('stream:text', ({ delta }) => {
  process.stdout.write(delta)
  midLine = !delta.endsWith('\n')
})
agent.hooks.hook('tool:after', ({ displayName, input, result, isError, durationMs }) => {
  const shown = typeof result === 'string' ? result : '[structured result]'
  console.log(`${midLine ? '\n' : ''}  -> ${displayName}(${JSON.stringify(input)}) ${isError ? 'failed' : 'returned'} ${shown} in ${durationMs} ms`)
  midLine = false
})

const stats = await agent.run({ prompt: 'What is this package called, and which Node versions does it support?' })

console.log(`${midLine ? '\n' : ''}\nstop: ${stats.stopReason} · turns: ${stats.turns} · tokens in/out: ${stats.totalIn}/${stats.totalOut}${
  stats.cost === undefined ? '' : ` · cost: $${stats.cost.toFixed(5)}`}`)

/** The offline stand-in: asks for two fields, then answers from what the tool really returned. */
function offlineModel(): Provider {
  return scriptedProvider([
    {
      text: 'Let me read package.json.',
      toolCalls: [
        { name: 'read_package_field', input: { field: 'name' } },
        { name: 'read_package_field', input: { field: 'engines' } },
      ],
    },
    {
      respond(request) {
        const last = request.messages.at(-1)
        const outputs = (last?.content ?? []).flatMap(block => block.type === 'tool_result' && typeof block.output === 'string' ? [block.output] : [])
        const name = JSON.parse(outputs[0] ?? 'null') as string
        const engines = JSON.parse(outputs[1] ?? '{}') as { node?: string }
        return { text: `The package is "${name}" and it supports Node ${engines.node ?? '(unspecified)'}.` }
      },
    },
  ], { defaultModel: 'scripted-quickstart' })
}
