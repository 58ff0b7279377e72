/**
 * The streaming iterator: read a run as typed events with `for await`.
 *
 *   node --import tsx examples/streaming.ts
 *
 * Part one prints a run as it happens: reasoning, text, tool calls and their
 * results, turn boundaries, and the final stats from `stream.result`.
 * Part two stops reading early: breaking out of the loop aborts the run, and
 * the session still holds a paired, consistent conversation.
 *
 * With ANTHROPIC_API_KEY set, this talks to Claude. Without it a scripted model
 * streams the words; the tool really runs.
 */
import type { Provider } from 'zidane'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { createMemoryStore, createSession } from 'zidane/session'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const roll = tool({
  name: 'roll_dice',
  description: 'Roll some six-sided dice.',
  input: z.object({ count: z.number().int().min(1).max(10) }),
  isConcurrencySafe: true,
  execute: ({ count }) => Array.from({ length: count }).fill(1 + Math.floor(Math.random() * 6)).join(', '),
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted, the dice are real.\n')

const session = await createSession({ store: createMemoryStore() })
const agent = createAgent({
  provider: live ? anthropic() : offlineModel(),
  tools: { roll },
  system: 'You play dice games. Use the tool for every roll; be brief.',
  session,
  behavior: { maxTurns: 6 },
})

console.log('— part one: a whole run, event by event')
const stream = agent.stream({ prompt: 'Roll three dice and tell me the total.' })
let midLine = false
function line(text: string) {
  console.log(`${midLine ? '\n' : ''}${text}`)
  midLine = false
}
for await (const event of stream) {
  switch (event.type) {
    case 'turn-start':
      line(`[turn ${event.turn}]`)
      break
    case 'thinking':
    case 'text':
      process.stdout.write(event.type === 'thinking' ? `\x1B[2m${event.delta}\x1B[0m` : event.delta)
      midLine = true
      break
    case 'tool-call':
      line(`  -> ${event.name}(${JSON.stringify(event.input)})`)
      break
    case 'tool-result':
      line(`  <- ${event.isError ? 'error: ' : ''}${String(event.output)}`)
      break
    case 'turn-end':
      line(`[turn ${event.turn} ended: ${event.finishReason}, ${event.usage.input} in / ${event.usage.output} out]`)
      break
  }
}
const stats = await stream.result
line(`stop: ${stats.stopReason} · turns: ${stats.turns} · at most ${stream.peakBuffered} events were waiting unread`)

console.log('\n— part two: stop reading after the first tool call')
const early = agent.stream({ prompt: 'Now roll ten dice, twice, and compare.' })
for await (const event of early) {
  if (event.type === 'tool-call') {
    console.log(`  saw ${event.name}(${JSON.stringify(event.input)}): leaving the loop`)
    break
  }
}
const aborted = await early.result
const calls = session.turns.flatMap(turn => turn.content.filter(block => block.type === 'tool_call')).length
const results = session.turns.flatMap(turn => turn.content.filter(block => block.type === 'tool_result')).length
console.log(`  stop: ${aborted.stopReason} · agent running: ${agent.running} · session: ${calls} tool calls, ${results} results`)

function offlineModel(): Provider {
  return scriptedProvider([
    { thinking: 'Three dice, one call. ', text: ['Rolling ', 'three ', 'dice.'], toolCalls: [{ name: 'roll_dice', input: { count: 3 } }] },
    {
      respond: (request) => {
        const output = String((request.messages.at(-1)?.content ?? []).find(block => block.type === 'tool_result')?.output ?? '')
        const dice = output.split(', ').map(Number)
        return { text: ['You rolled ', `${dice.join(', ')}: `, `a total of ${dice.reduce((a, b) => a + b, 0)}.`] }
      },
    },
    // Part two reads no further than this turn's tool call.
    { text: ['First roll of ten.'], toolCalls: [{ name: 'roll_dice', input: { count: 10 } }] },
  ], { defaultModel: 'scripted-dice' })
}
