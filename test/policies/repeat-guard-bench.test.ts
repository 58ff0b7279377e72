import { describe, expect, it } from 'vitest'
import { buildCorpus, HONEST_SHAPES, LOOP_SHAPES, MAX_CALLS } from '../../bench/guards/corpus'
import { CONFIGS, playCorpus, score } from '../../bench/guards/run-corpus'

// A small slice of the guards benchmark: labels and outcomes only, never timings.

describe('bench/guards corpus', () => {
  it('is the same for one seed, labelled, and at least 200 runs at its default size', () => {
    const corpus = buildCorpus()
    expect(corpus.length).toBeGreaterThanOrEqual(200)
    expect(JSON.stringify(buildCorpus())).toBe(JSON.stringify(corpus))
    expect(JSON.stringify(buildCorpus(14))).not.toBe(JSON.stringify(corpus))
    expect(new Set(corpus.map(run => run.shape))).toEqual(new Set([...LOOP_SHAPES, ...HONEST_SHAPES]))
    for (const run of corpus) {
      expect(run.label).toBe((LOOP_SHAPES as readonly string[]).includes(run.shape) ? 'loop' : 'honest')
      if (run.label === 'loop') {
        expect(run.calls).toHaveLength(MAX_CALLS)
        expect(run.loopStart).toBeGreaterThan(0)
      }
    }
  })
})

describe('bench/guards outcomes on a slice', () => {
  const slice = buildCorpus(13, 2, 2)
  const config = (name: string) => CONFIGS.find(entry => entry.name.startsWith(name))!.behavior

  it('with the guard off, no loop is stopped and every loop runs to the cap', async () => {
    const outcomes = await playCorpus(slice, config('default'))
    expect(score(outcomes).recall).toBe(0)
    for (const outcome of outcomes.filter(entry => entry.run.label === 'loop'))
      expect(outcome.callsAfterStart).toBe(MAX_CALLS - outcome.run.loopStart!)
  }, 60_000)

  it('the recommended configuration stops every loop within 5 wasted calls and leaves honest runs alone', async () => {
    const outcomes = await playCorpus(slice, config('recommended'))
    for (const outcome of outcomes) {
      if (outcome.run.label === 'loop') {
        expect(outcome.stopped, outcome.run.id).toBe(true)
        expect(outcome.wasted, outcome.run.id).toBeLessThanOrEqual(5)
        expect(outcome.aborted, outcome.run.id).toBe(outcome.run.temperament === 'stubborn')
      }
      else {
        expect(outcome.disturbed, outcome.run.id).toBe(false)
      }
    }
  }, 60_000)

  it('the contract defaults stop identical loops but not alternation', async () => {
    const outcomes = await playCorpus(slice.filter(run => run.shape === 'identical' || run.shape === 'alternating'), config('repeatGuard: {}'))
    expect(outcomes.map(outcome => [outcome.run.shape, outcome.stopped])).toEqual([['identical', true], ['identical', true], ['alternating', false], ['alternating', false]])
  }, 60_000)
})
