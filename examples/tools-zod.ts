/**
 * Tools with zod: typed inputs, descriptions the model reads, and bad
 * arguments turned into an error the model can fix.
 *
 *   node --import tsx examples/tools-zod.ts
 *
 * With ANTHROPIC_API_KEY set, Claude picks the calls. Without it, a scripted
 * model first sends an invalid argument (to show the error it gets back),
 * then corrects itself; the tools really run either way.
 */
import type { Provider } from 'zidane'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const convert = tool({
  name: 'convert_temperature',
  description: 'Convert a temperature between Celsius and Fahrenheit.',
  input: z.object({
    value: z.number().describe('The temperature to convert'),
    from: z.enum(['C', 'F']).describe('Unit of `value`'),
  }),
  isConcurrencySafe: true,
  execute: ({ value, from }) => {
    const converted = from === 'C' ? value * 9 / 5 + 32 : (value - 32) * 5 / 9
    return `${value}°${from} = ${converted.toFixed(1)}°${from === 'C' ? 'F' : 'C'}`
  },
})

const dayOfWeek = tool({
  name: 'day_of_week',
  description: 'The day of the week of a calendar date.',
  input: z.object({ date: z.iso.date().describe('A date as YYYY-MM-DD') }),
  isConcurrencySafe: true,
  execute: ({ date }) => new Date(`${date}T12:00:00Z`).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' }),
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted, the tools are real.\n')

const agent = createAgent({
  provider: live ? anthropic() : offlineModel(),
  tools: { convert, dayOfWeek },
  system: 'Answer with your tools; be brief.',
  behavior: { maxTurns: 6 },
})

// What the model sees: JSON Schema generated from zod, descriptions included.
console.log('schema sent for convert_temperature:')
console.log(`  ${JSON.stringify(convert.spec.inputSchema)}\n`)

agent.hooks.hook('tool:after', ({ name, input, result, isError }) => {
  console.log(`${isError ? '✗' : '✓'} ${name}(${JSON.stringify(input)})\n    ${String(result)}`)
})

const stats = await agent.run({ prompt: 'What is 21°C in Fahrenheit, and what day of the week was 2024-02-29?' })
console.log(`\nanswer: ${stats.text}\nstop: ${stats.stopReason} after ${stats.turns} turns`)

/** Sends one bad argument first, then the corrected calls, then answers from the real results. */
function offlineModel(): Provider {
  return scriptedProvider([
    { text: 'Converting.', toolCalls: [{ name: 'convert_temperature', input: { value: '21', from: 'Celsius' } }] },
    {
      text: 'I sent the wrong types; retrying.',
      toolCalls: [
        { name: 'convert_temperature', input: { value: 21, from: 'C' } },
        { name: 'day_of_week', input: { date: '2024-02-29' } },
      ],
    },
    {
      respond: (request) => {
        const results = (request.messages.at(-1)?.content ?? []).flatMap(block => block.type === 'tool_result' ? [String(block.output)] : [])
        return { text: `${results[0]}; 2024-02-29 was a ${results[1]}.` }
      },
    },
  ], { defaultModel: 'scripted-tools' })
}
