/**
 * One process of `loop-instructions`: replays the recorded answers, warms
 * one loop (or both, alternated), then runs the measured phase it is given.
 * Its instructions are counted from outside (cachegrind); the parent takes
 * the difference between two processes that differ only in the measured
 * phase, so start-up, loading and warm-up cancel out.
 */

import type { LoopConfig } from './loop-runners'
import type { BenchProvider } from './loop-script'
import type { SavedAnswers } from './recorded-answers'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { floorRunner, zidaneRunner } from './loop-runners'
import { loadAnswers, withRecordedAnswers } from './recorded-answers'

export type LoopName = 'floor' | 'zidane'

/** What a child process runs, handed over as one JSON argument. */
export interface ChildPlan {
  answersFile: string
  provider: BenchProvider
  callsPerTurn: number
  config: LoopConfig
  turns: number
  /** Warm-up: one loop alone, or both alternated (each first in every other round). */
  warm: LoopName | 'both'
  warmRuns: number
  /** Each measured round runs these loops once, in this order (none: the process that is subtracted). */
  measured: LoopName[]
  runs: number
}

export async function runChild(plan: ChildPlan): Promise<void> {
  const saved = JSON.parse(readFileSync(plan.answersFile, 'utf8')) as SavedAnswers
  const dir = mkdtempSync(join(tmpdir(), 'zidane-instructions-'))
  try {
    await withRecordedAnswers(loadAnswers(saved), async () => {
      // Never reached: the dispatcher answers every request (a port fetch allows, so no request is refused first).
      const shared = { baseURL: 'http://127.0.0.1:40000', maxTurns: plan.turns + 10 }
      const loops: Record<LoopName, () => Promise<{ turns: number }>> = {
        floor: floorRunner(plan.provider, { ...shared, dir: join(dir, 'floor') }),
        zidane: zidaneRunner(plan.provider, plan.config, plan.callsPerTurn > 1, { ...shared, dir: join(dir, 'zidane') }),
      }
      const once = async (name: LoopName): Promise<void> => {
        const { turns } = await loops[name]()
        if (turns !== plan.turns)
          throw new Error(`loop-instructions: ${name} ran ${turns} turns, not ${plan.turns}`)
      }
      for (let round = 0; round < plan.warmRuns; round++) {
        const order: LoopName[] = plan.warm === 'both' ? (round % 2 === 0 ? ['floor', 'zidane'] : ['zidane', 'floor']) : [plan.warm]
        for (const name of order) await once(name)
      }
      for (let round = 0; round < plan.runs; round++) {
        for (const name of plan.measured) await once(name)
      }
    })
  }
  finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const argument = process.argv[2]
if (argument?.startsWith('{'))
  await runChild(JSON.parse(argument) as ChildPlan)
