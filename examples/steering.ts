/**
 * Steering and follow-ups: talk to an agent while it works.
 *
 *   node --import tsx examples/steering.ts
 *
 * `agent.steer()` adds a message at the next turn boundary (the run keeps
 * going to handle it); `agent.followUp()` waits until the run would otherwise
 * end. Here a host steers while a long tool is running and queues a
 * follow-up; the run handles both before it stops.
 *
 * With ANTHROPIC_API_KEY set, Claude does the work; without it a scripted
 * model answers from what it is sent, so you can see where each message landed.
 */
import type { Provider, StreamOptions } from 'zidane'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const files = new Map([['src/a.ts', 12], ['src/b.ts', 40], ['test/a.test.ts', 25]])

const countLines = tool({
  name: 'count_lines',
  description: 'Count the lines of the given files.',
  input: z.object({ paths: z.array(z.string()) }),
  execute: async ({ paths }) => {
    await new Promise(resolve => setTimeout(resolve, 50))
    return paths.map(path => `${path}: ${files.get(path) ?? 'missing'}`).join('\n')
  },
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted and answers from the messages it gets.\n')

const agent = createAgent({
  provider: live ? anthropic() : offlineModel(),
  tools: { countLines },
  system: `You help with a codebase. Files: ${[...files.keys()].join(', ')}. Be brief.`,
  behavior: { maxTurns: 8 },
})

// The host changes its mind while the tool is running: the message joins at the next turn boundary.
agent.hooks.hook('tool:before', () => agent.steer('Only count files under src/, please.', { id: 'narrow-scope' }))
agent.hooks.hook('steer:inject', ({ kind, id, prompt }) => console.log(`  [${kind}${id ? ` ${id}` : ''} joined] ${String(prompt)}`))
agent.hooks.hook('tool:after', ({ name, input }) => console.log(`  -> ${name}(${JSON.stringify(input)})`))
agent.hooks.hook('stream:end', ({ content }) => {
  const text = content.map(block => block.type === 'text' ? block.text : '').join('')
  if (text)
    console.log(`model: ${text}`)
})

// Queued before the run starts: it joins only when the run would otherwise end.
agent.followUp('Now give me the total in one line.', { id: 'total' })

const stats = await agent.run({ prompt: 'How many lines does each file have?' })
console.log(`\nstop: ${stats.stopReason} · turns: ${stats.turns}`)

/** Reads the last user message and answers it, so the transcript shows where each message landed. */
function offlineModel(): Provider {
  const lastUserText = (request: StreamOptions) => {
    const last = request.messages.at(-1)
    return (last?.content ?? []).map(block => block.type === 'text' ? block.text : '').join('')
  }
  return scriptedProvider([
    { text: 'Counting all three files.', toolCalls: [{ name: 'count_lines', input: { paths: [...files.keys()] } }] },
    {
      respond: request => lastUserText(request).includes('src/')
        ? { text: 'Understood, src/ only: src/a.ts has 12 lines and src/b.ts has 40.' }
        : { text: 'Here are the counts for all files.' },
    },
    {
      respond: request => lastUserText(request).includes('total')
        ? { text: 'Total under src/: 52 lines.' }
        : { text: 'Nothing else to do.' },
    },
  ], { defaultModel: 'scripted-steering' })
}
