/**
 * A host scheduler for a turn's tool calls (`behavior.toolBatchExecutor`):
 * at most two calls in flight whatever the tools say about concurrency, the
 * slowest first, with `toolBatchTimeoutMs` bounding the whole batch. Every
 * call still goes through the whole call pipeline (here the host's
 * `tool:gate` refuses one), and the model gets the results in its own order.
 *
 *   node --import tsx examples/tool-batch-executor.ts
 *
 * With ANTHROPIC_API_KEY set, this talks to Claude. Without it, the model's
 * words are scripted, and the tool really reads file sizes on disk.
 */
import type { Provider, ToolBatchExecutor } from 'zidane'
import { stat } from 'node:fs/promises'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const fileSize = tool({
  name: 'file_size',
  description: 'The size in bytes of a file of the examples folder.',
  input: z.object({ file: z.string().describe('A file name, e.g. "quickstart.ts"') }),
  isConcurrencySafe: true,
  async execute({ file }) {
    return String((await stat(new URL(file, import.meta.url))).size)
  },
})

// Runs the calls two at a time, the ones the host expects to be slow first; `execute` answers each through the pipeline.
const twoAtATime: ToolBatchExecutor = async ({ calls, execute, signal, turnId }) => {
  const order = [...calls].sort((a, b) => String(b.input.file).length - String(a.input.file).length)
  console.log(`  [scheduler] turn ${turnId.slice(0, 8)}: ${calls.length} calls, run as ${order.map(call => call.input.file).join(', ')}`)
  const results = []
  for (let i = 0; i < order.length && !signal.aborted; i += 2)
    results.push(...await Promise.all(order.slice(i, i + 2).map(call => execute(call))))
  return results // in any order: the loop pairs them by call id
}

const live = Boolean(process.env.ANTHROPIC_API_KEY)
const files = ['quickstart.ts', 'streaming.ts', 'structured-output.ts', 'README.md']
const provider: Provider = live
  ? anthropic()
  : scriptedProvider([
      { toolCalls: files.map(file => ({ name: 'file_size', input: { file } })) },
      { text: 'Done: I have the sizes of the three programs (reading README.md was refused).' },
    ])
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted, the tool is real.\n')

const agent = createAgent({
  provider,
  tools: { fileSize },
  behavior: { toolBatchExecutor: twoAtATime, toolBatchTimeoutMs: 30_000, maxTurns: 4 },
  hooks: {
    'tool:gate': (ctx) => {
      if (String(ctx.input.file).endsWith('.md')) {
        ctx.block = true
        ctx.reason = 'only programs may be measured'
      }
    },
    'tool-results:after': ({ results }) => {
      for (const result of results) console.log(`  ${result.callId.slice(0, 12)} -> ${String(result.output)}`)
    },
  },
})

const stats = await agent.run({ prompt: `Call file_size once for each of ${files.join(', ')}, all in one turn, then say you are done.` })
console.log(`\n${stats.text}\nstop: ${stats.stopReason} · turns: ${stats.turns}`)
await agent.destroy()
