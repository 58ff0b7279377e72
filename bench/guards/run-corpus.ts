/**
 * Plays corpus runs through `createAgent` with a scripted model and stand-in
 * tools (no file system, no processes), and scores what the repeat guard did.
 */

import type { AgentBehavior, RepeatGuardConfig, ToolDef } from '../../src'
import type { ScriptedTurn } from '../../src/testing'
import type { CorpusRun } from './corpus'
import { createAgent, recommendedRepeatGuard } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { MAX_CALLS } from './corpus'

/** What one run did under one configuration. */
export interface RunOutcome {
  readonly run: CorpusRun
  /** The guard acted at least once (block, steer or abort). */
  readonly disturbed: boolean
  /** The run ended before its plan ran out: the model changed course, or the guard aborted it. */
  readonly stopped: boolean
  readonly aborted: boolean
  /** Calls after the loop started whose tool really ran (loops only). */
  readonly wasted: number
  /** Calls the model made after the loop started, refused ones included (loops only). */
  readonly callsAfterStart: number
}

function standIn(name: string, answer: (input: Record<string, unknown>, count: number) => string, ran: Set<string>): ToolDef {
  let count = 0
  return {
    spec: { name, description: `${name} stand-in`, inputSchema: { type: 'object', properties: {} } },
    execute: (input: Record<string, unknown>, ctx) => {
      ran.add(ctx.callId)
      return answer(input, ++count)
    },
  }
}

function tools(ran: Set<string>): Record<string, ToolDef> {
  return {
    shell: standIn('shell', input => `$ ${String(input.command)}\n(exit 1) the same failure as before`, ran),
    read_file: standIn('read_file', input => `1\t// ${String(input.path)}\n2\tconst retries = 3`, ran),
    edit: standIn('edit', input => `Edited ${String(input.path)}`, ran),
    write_file: standIn('write_file', input => `Wrote ${String(input.path)}`, ran),
    job_status: standIn('job_status', (_input, count) => count < 1_000 ? `running (${count * 7}%)` : 'done', ran),
    deploy: standIn('deploy', () => 'deployed', ran),
  }
}

/** Play one run under one behavior. */
export async function playRun(run: CorpusRun, behavior: AgentBehavior): Promise<RunOutcome> {
  const ran = new Set<string>()
  let cursor = 0
  let interventions = 0
  let pivoted = false
  const next = (): Omit<ScriptedTurn, 'respond'> => {
    if (interventions > 0 && run.temperament === 'responsive') {
      pivoted = true
      return { text: 'That is not working; trying a different approach.' }
    }
    if (cursor >= run.calls.length)
      return { text: run.label === 'loop' ? 'Out of turns.' : 'Done.' }
    const call = run.calls[cursor]!
    return { toolCalls: [{ id: `c${cursor++}`, name: call.name, input: call.input }] }
  }
  const provider = scriptedProvider(Array.from<ScriptedTurn>({ length: MAX_CALLS + 2 }).fill({ respond: () => next() }))
  const agent = createAgent({
    provider,
    tools: tools(ran),
    behavior,
    hooks: {
      'repeat-guard:exceeded': () => void (interventions += 1),
      // The host's own gate: the deploy budget is spent, so every deploy is refused.
      'tool:gate': (gate) => {
        if (gate.name === 'deploy' && !gate.block) {
          gate.block = true
          gate.reason = 'the deploy budget for today is spent'
        }
      },
    },
  })
  const stats = await agent.run({ prompt: 'Fix the failing build.' })
  await agent.destroy()
  const made = cursor
  const start = run.loopStart ?? made
  let wasted = 0
  for (let index = start; index < made; index++) {
    if (ran.has(`c${index}`))
      wasted += 1
  }
  const aborted = stats.stopReason === 'aborted'
  return {
    run,
    disturbed: interventions > 0,
    stopped: aborted || pivoted,
    aborted,
    wasted,
    callsAfterStart: Math.max(0, made - start),
  }
}

/** The figures of one configuration over a corpus. */
export interface Score {
  readonly loops: number
  readonly honest: number
  /** Loop runs stopped, over loop runs. */
  readonly recall: number
  /** Honest runs the guard acted on, over honest runs. */
  readonly falsePositiveRate: number
  readonly wastedMean: number
  readonly wastedMax: number
  /** Per shape: runs, and how many were stopped (loops) or disturbed (honest). */
  readonly byShape: Readonly<Record<string, { runs: number, hits: number, wastedMax: number }>>
}

export function score(outcomes: readonly RunOutcome[]): Score {
  const loops = outcomes.filter(outcome => outcome.run.label === 'loop')
  const honest = outcomes.filter(outcome => outcome.run.label === 'honest')
  const byShape: Record<string, { runs: number, hits: number, wastedMax: number }> = {}
  for (const outcome of outcomes) {
    const entry = byShape[outcome.run.shape] ??= { runs: 0, hits: 0, wastedMax: 0 }
    entry.runs += 1
    if (outcome.run.label === 'loop' ? outcome.stopped : outcome.disturbed)
      entry.hits += 1
    entry.wastedMax = Math.max(entry.wastedMax, outcome.wasted)
  }
  const wasted = loops.map(outcome => outcome.wasted)
  return {
    loops: loops.length,
    honest: honest.length,
    recall: loops.filter(outcome => outcome.stopped).length / Math.max(1, loops.length),
    falsePositiveRate: honest.filter(outcome => outcome.disturbed).length / Math.max(1, honest.length),
    wastedMean: wasted.reduce((sum, n) => sum + n, 0) / Math.max(1, wasted.length),
    wastedMax: Math.max(0, ...wasted),
    byShape,
  }
}

/** Play every run, in order, each under a fresh behavior (runs are independent and deterministic). */
export async function playCorpus(runs: readonly CorpusRun[], behavior: () => AgentBehavior): Promise<RunOutcome[]> {
  const outcomes: RunOutcome[] = []
  for (const run of runs)
    outcomes.push(await playRun(run, behavior()))
  return outcomes
}

/**
 * The configuration the benchmark recommends, as users turn it on: the
 * exported `recommendedRepeatGuard`, with the corpus's poll tool named.
 */
export function recommended(): RepeatGuardConfig {
  return recommendedRepeatGuard({ pollTools: ['job_status'] })
}

/** The configurations the benchmark measures, in table order. */
export const CONFIGS: readonly { name: string, behavior: () => AgentBehavior }[] = [
  { name: 'default (repeatGuard unset: off)', behavior: () => ({}) },
  { name: 'repeatGuard: {} (contract defaults)', behavior: () => ({ repeatGuard: {} }) },
  { name: 'recommended', behavior: () => ({ repeatGuard: recommended() }) },
]
