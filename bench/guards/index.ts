/**
 * guards: how well the repeat guard tells a stuck model from an honest one.
 *
 * A seeded corpus (`corpus.ts`) of 240 scripted runs, 120 loops of five
 * shapes and 120 honest runs of three, is played through `createAgent` with a
 * scripted model under each configuration of `CONFIGS`. Printed per
 * configuration: recall (loops stopped: the model changed course after the
 * guard acted, or the guard aborted the run), false positives (honest runs
 * the guard acted on at all) and calls wasted after a loop started (calls
 * whose tool really ran). Targets: recall >= 0.98, false positives <= 1%,
 * at most 5 calls wasted. Counts, not timings: the figures are the same on
 * every machine.
 */

import { printTable } from '../measure'
import { buildCorpus, HONEST_SHAPES, LOOP_SHAPES } from './corpus'
import { CONFIGS, playCorpus, score } from './run-corpus'

const TARGETS = { recall: 0.98, falsePositiveRate: 0.01, wastedMax: 5 }

const percent = (value: number) => `${(value * 100).toFixed(1)}%`
const mark = (ok: boolean) => (ok ? 'ok' : 'MISS')

export async function guards(): Promise<void> {
  const corpus = buildCorpus()
  console.log(`guards: ${corpus.length} scripted runs (seed 13), ${corpus.filter(run => run.label === 'loop').length} loops, ${corpus.filter(run => run.label === 'honest').length} honest\n`)
  const rows: string[][] = []
  const shapeRows: string[][] = []
  for (const config of CONFIGS) {
    const result = score(await playCorpus(corpus, config.behavior))
    rows.push([
      config.name,
      `${result.recall.toFixed(3)} ${mark(result.recall >= TARGETS.recall)}`,
      `${percent(result.falsePositiveRate)} ${mark(result.falsePositiveRate <= TARGETS.falsePositiveRate)}`,
      `${result.wastedMean.toFixed(1)} / ${result.wastedMax} ${mark(result.wastedMax <= TARGETS.wastedMax)}`,
    ])
    shapeRows.push([config.name, ...[...LOOP_SHAPES, ...HONEST_SHAPES].map((shape) => {
      const entry = result.byShape[shape]!
      return `${entry.hits}/${entry.runs}`
    })])
  }
  printTable(['configuration', 'recall (>= 0.98)', 'false positives (<= 1%)', 'wasted mean / max (<= 5)'], rows)
  console.log('\nper shape: loops stopped / runs, honest runs disturbed / runs')
  printTable(['configuration', ...LOOP_SHAPES, ...HONEST_SHAPES.map(shape => `${shape} (honest)`)], shapeRows)
}
