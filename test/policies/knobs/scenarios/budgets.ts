import type { AgentBehavior, ToolDef } from '../../../../src'
import type { BudgetKnobs } from '../../../../src/knobs/budget-knobs'
import type { ScriptedTurn } from '../../../../src/testing'
import type { SliceScenarios } from '../harness'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from '../../../../src'
import { createProcessContext } from '../../../../src/contexts'
import { createSession } from '../../../../src/session'
import { scriptedProvider } from '../../../../src/testing'
import { edit, readFile } from '../../../../src/tools'

/**
 * One scripted run with a counting `probe` tool (its output is `n` bytes of
 * `x` for `{ n }`) and the file tools in a fresh directory holding `a.txt`.
 * Reports how often `probe` really ran, every tool result as the model got
 * it, and the text of each request after the first (what reached the model).
 */
async function budgetRun(behavior: AgentBehavior, calls: ScriptedTurn['toolCalls'][]) {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-knobs-budgets-'))
  writeFileSync(join(dir, 'a.txt'), 'alpha\nbeta\n')
  let ran = 0
  const probe: ToolDef = {
    spec: { name: 'probe', description: 'Returns n bytes.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
    execute: (input) => {
      ran++
      return 'x'.repeat((input as { n?: number }).n ?? 1)
    },
  }
  const provider = scriptedProvider([...calls.map(toolCalls => ({ toolCalls })), { text: 'done' }])
  const results: string[] = []
  const agent = createAgent({
    provider,
    tools: { probe, read_file: readFile, edit },
    execution: createProcessContext({ cwd: dir }),
    session: await createSession(),
    behavior,
    hooks: { 'tool:after': ctx => void results.push(typeof ctx.result === 'string' ? ctx.result : JSON.stringify(ctx.result)) },
  })
  await agent.run({ prompt: 'go' })
  await agent.destroy()
  const sent = provider.requests.map(request => JSON.stringify(request.messages))
  return { ran, results, sent }
}

const probe = (n = 1) => ({ name: 'probe', input: { n } })
const readA = { name: 'read_file', input: { path: 'a.txt' } }
const editA = { name: 'edit', input: { path: 'a.txt', old_string: 'beta', new_string: 'gamma' } }

export const budgetScenarios: SliceScenarios<BudgetKnobs> = {
  toolBudgets: {
    value: { probe: { max: 1, onExceed: 'block' } },
    outcome: async behavior => (await budgetRun(behavior, [[probe(), probe(), probe()]])).ran,
    unset: 3,
    set: 1,
  },
  toolOutputBudget: {
    value: 100,
    outcome: async behavior => (await budgetRun(behavior, [[probe(300)]])).sent.at(-1)!.includes('bytes per turn'),
    unset: false,
    set: true,
  },
  toolOutputBudgetExcludeTools: {
    value: ['probe'],
    outcome: async behavior => (await budgetRun({ toolOutputBudget: 100, ...behavior }, [[probe(300)]])).sent.at(-1)!.includes('bytes per turn'),
    unset: true,
    set: false,
  },
  dedupTools: {
    value: { probe: (input: Readonly<Record<string, unknown>>) => JSON.stringify(input) },
    outcome: async behavior => (await budgetRun(behavior, [[probe(5)], [probe(5)]])).ran,
    unset: 2,
    set: 1,
  },
  elideStaleReads: {
    value: 'stub',
    outcome: async behavior => (await budgetRun(behavior, [[readA], [editA]])).sent.at(-1)!.includes('Stale read_file result elided'),
    unset: false,
    set: true,
  },
}
