/**
 * Structured output: the run's final answer as a validated value.
 *
 *   node --import tsx examples/structured-output.ts
 *
 * `behavior.schema` (a zod 4 schema here; a JSON Schema object works too)
 * gives the model a `final_answer` tool next to its own tools. It looks
 * things up first, answers last, and the answer lands on `stats.output`,
 * parsed by zod. While it streams, `output:partial` shows it growing.
 *
 * With ANTHROPIC_API_KEY set, Claude does the work. Without it, a scripted
 * model first gives an answer that fails the schema (to show the repair
 * message it gets back), then a valid one; the tool really runs either way.
 */
import type { Provider } from 'zidane'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const Report = z.object({
  city: z.string(),
  celsius: z.number(),
  fahrenheit: z.number(),
  advice: z.enum(['coat', 'jacket', 't-shirt']),
})

const weather = tool({
  name: 'weather',
  description: 'Current temperature of a city, in degrees Celsius.',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `${city}: 21 °C, clear sky`,
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted, the tool and the validation are real.\n')

const agent = createAgent({
  provider: live ? anthropic() : offlineModel(),
  tools: { weather },
  system: 'You write short weather reports.',
  behavior: { schema: Report, maxTurns: 6 },
})

let shown = ''
agent.hooks.hook('output:partial', ({ value }) => {
  const now = JSON.stringify(value)
  if (now !== shown)
    console.log(`  partial: ${(shown = now)}`)
})
agent.hooks.hook('tool:after', ({ name, result, isError }) => {
  console.log(`${isError ? '✗' : '✓'} ${name}: ${String(result)}`)
})

const stats = await agent.run({ prompt: 'Weather report for Ljubljana, please.' })
console.log(`\nstop: ${stats.stopReason} after ${stats.turns} turns`)
if (stats.output !== undefined) {
  const report = Report.parse(stats.output)
  console.log(`output: ${report.city} is ${report.celsius} °C (${report.fahrenheit} °F): wear a ${report.advice}`)
}
else {
  console.log(`no valid output: ${stats.outputError?.message}\nraw answer: ${stats.text}`)
}

/** Looks the weather up, answers with a wrong type, then repairs its answer. */
function offlineModel(): Provider {
  return scriptedProvider([
    { text: 'Checking the weather.', toolCalls: [{ name: 'weather', input: { city: 'Ljubljana' } }] },
    { toolCalls: [{ name: 'final_answer', input: { city: 'Ljubljana', celsius: '21', fahrenheit: 69.8, advice: 'jacket' } }] },
    { toolCalls: [{ name: 'final_answer', input: { city: 'Ljubljana', celsius: 21, fahrenheit: 69.8, advice: 't-shirt' } }] },
  ], { defaultModel: 'scripted-weather' })
}
