/**
 * Subagents: a parent delegates two tasks to children that run in parallel,
 * each with its own tools, and reports what they found.
 *
 *   node --import tsx examples/subagents.ts
 *
 * The `spawn` tool runs each task on a fresh child agent. The children's
 * events come back on the parent's hooks as `child:*` (with `childId` and
 * `depth`), and their token usage folds into the parent's stats.
 *
 * With ANTHROPIC_API_KEY set, parent and children are Claude. Without it they
 * are scripted; the children's tool really reads this repository's files.
 */
import type { Provider, StreamOptions } from 'zidane'
import type { ScriptedTurn } from 'zidane/testing'
import { readdir, readFile } from 'node:fs/promises'
import { createAgent, statsByModel, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'
import { createSpawnTool } from 'zidane/tools'
import { z } from 'zod'

const TRAILING_SLASH = /\/?$/
const LINE_TOTAL = /(\d+) lines/

const repo = new URL('../', import.meta.url)

const countLines = tool({
  name: 'count_lines',
  description: 'Count the lines of every .ts file in a folder of this repository (not recursive).',
  input: z.object({ folder: z.string().describe('Folder relative to the repository root, e.g. "examples"') }),
  isConcurrencySafe: true,
  execute: async ({ folder }) => {
    const dir = new URL(`${folder.replace(TRAILING_SLASH, '/')}`, repo)
    const names = (await readdir(dir)).filter(name => name.endsWith('.ts')).sort()
    const counts = await Promise.all(names.map(async name => `${name}: ${(await readFile(new URL(name, dir), 'utf8')).split('\n').length}`))
    return counts.join('\n') || 'no .ts files'
  },
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the models are scripted; the children\'s tool is real.\n')

const spawn = createSpawnTool({
  child: {
    provider: live ? anthropic() : childModel(),
    tools: { countLines },
    system: 'You count lines with your tool and report the largest file and the total. One short sentence.',
  },
  maxConcurrent: 2,
})

const agent = createAgent({
  provider: live ? anthropic() : parentModel(),
  tools: { spawn },
  system: 'Delegate each folder to its own subagent (in parallel), then compare their reports in two sentences.',
  behavior: { maxTurns: 4 },
})

agent.hooks.hook('spawn:before', ({ id, task }) => console.log(`[${id}] started: ${task}`))
agent.hooks.hook('child:tool:after', ({ childId, depth, name, input }) => console.log(`[${childId} depth ${depth}] ${name}(${JSON.stringify(input)})`))
agent.hooks.hook('spawn:complete', ({ id, stats }) => console.log(`[${id}] ${stats.status}: ${stats.stats.text}`))

const stats = await agent.run({ prompt: 'Which folder has more TypeScript, examples/ or scripts/?' })
console.log(`\nparent: ${stats.text}`)
console.log(`\nstop: ${stats.stopReason} · children: ${stats.children?.length ?? 0} · tokens in/out, all agents: ${stats.totalIn}/${stats.totalOut}`)
for (const [model, usage] of statsByModel(stats))
  console.log(`  ${model}: ${usage.turns} turns, ${usage.input} in / ${usage.output} out`)

function parentModel(): Provider {
  return scriptedProvider([
    {
      text: 'Delegating both folders.',
      toolCalls: [
        { name: 'spawn', input: { task: 'Count the lines of the .ts files in examples' } },
        { name: 'spawn', input: { task: 'Count the lines of the .ts files in scripts' } },
      ],
    },
    {
      respond: (request) => {
        const reports = (request.messages.at(-1)?.content ?? []).flatMap(block => block.type === 'tool_result' ? [String(block.output)] : [])
        const total = (report = '') => Number(LINE_TOTAL.exec(report)?.[1] ?? 0)
        const winner = total(reports[0]) >= total(reports[1]) ? 'examples/' : 'scripts/'
        return { text: `${winner} has more. examples/: ${reports[0]} scripts/: ${reports[1]}`, usage: { input: 200, output: 40 } }
      },
    },
  ], { name: 'scripted-parent', defaultModel: 'scripted-parent-model' })
}

/**
 * The children share this provider and run in parallel, so their turns interleave: each turn answers
 * from the request it gets (call the tool first, then summarize its real output).
 */
function childModel(): Provider {
  const step = (request: StreamOptions): Omit<ScriptedTurn, 'respond'> => {
    const result = (request.messages.at(-1)?.content ?? []).find(block => block.type === 'tool_result')
    if (!result) {
      const task = request.messages[0].content.map(block => block.type === 'text' ? block.text : '').join('')
      return { toolCalls: [{ name: 'count_lines', input: { folder: task.split(' ').at(-1)! } }] }
    }
    const rows = String(result.output).split('\n').map(line => line.split(': ')).map(([name, lines]) => ({ name, lines: Number(lines) }))
    const largest = rows.reduce((a, b) => (b.lines > a.lines ? b : a))
    const total = rows.reduce((sum, row) => sum + row.lines, 0)
    return { text: `${rows.length} files, ${total} lines; the largest is ${largest.name} (${largest.lines}).` }
  }
  const turn: ScriptedTurn = { respond: step }
  return scriptedProvider([turn, turn, turn, turn], { name: 'scripted-child', defaultModel: 'scripted-child-model' })
}
