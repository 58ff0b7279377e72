import type { OutputKnobs } from '../../../../src/knobs/output-knobs'
import type { ScriptedTurn } from '../../../../src/testing'
import type { SliceScenarios } from '../harness'
import { createAgent } from '../../../../src'
import { scriptedProvider } from '../../../../src/testing'

const SCHEMA = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false }

/** How a run ended, and the output it gave. */
async function ending(turns: ScriptedTurn[], behavior: OutputKnobs): Promise<{ stopReason: string, output?: unknown }> {
  const agent = createAgent({ provider: scriptedProvider(turns), behavior })
  try {
    const stats = await agent.run({ prompt: 'answer as JSON' })
    return stats.output === undefined ? { stopReason: stats.stopReason } : { stopReason: stats.stopReason, output: stats.output }
  }
  finally {
    await agent.destroy()
  }
}

const bad = (answer: unknown): ScriptedTurn => ({ toolCalls: [{ name: 'final_answer', input: { answer } }] })

export const outputScenarios: SliceScenarios<OutputKnobs> = {
  schema: {
    value: SCHEMA,
    // Unset, the model's JSON text is just text; with a schema it becomes the validated value.
    outcome: behavior => ending([{ text: '{"answer": 42}' }], behavior),
    unset: { stopReason: 'completed' },
    set: { stopReason: 'completed', output: { answer: 42 } },
  },
  maxOutputRepairs: {
    value: 0,
    // Two invalid answers, then a valid one: the default bound (2) lets the third through, 0 stops at the first.
    outcome: behavior => ending([bad('x'), bad('y'), bad(7)], { schema: SCHEMA, ...behavior }),
    unset: { stopReason: 'completed', output: { answer: 7 } },
    set: { stopReason: 'output-invalid' },
  },
}
