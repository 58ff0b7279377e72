import { describe, expect, it } from 'vitest'
import { FINAL_TEXT } from '../../bench/loop-script'
import { SHORT_RUN_TURNS, shortRun, sourceEntries } from '../../bench/short-run'

// The short-run benchmark once, for correctness only (no timing is asserted):
// the fake server runs in its own process as in the benchmark, and each
// program, zidane (on its sources, so no build is needed) and the AI SDK
// (streaming, and not: the fake server answers JSON to a request without
// `stream`), then zidane and `generateText` each bundled into one file by
// esbuild, runs in a fresh process through the whole scripted conversation. The
// benchmark itself refuses a sample that did not (`checkShortRun`).

describe('short-run benchmark, one round', () => {
  it('runs every program through the scripted conversation and reports their times', async () => {
    const samples = await shortRun({ rounds: 1, zidane: sourceEntries() })
    expect([...samples.keys()]).toEqual([
      'zidane + zidane/providers/anthropic',
      'ai + @ai-sdk/anthropic (streamText)',
      'ai + @ai-sdk/anthropic (generateText)',
      'zidane + zidane/providers/anthropic, bundled',
      'ai + @ai-sdk/anthropic (generateText), bundled',
    ])
    for (const [, [sample, ...more]] of samples) {
      expect(more).toEqual([])
      expect(sample).toMatchObject({ turns: SHORT_RUN_TURNS, toolCalls: SHORT_RUN_TURNS - 1, text: FINAL_TEXT })
      expect(sample.importedMs).toBeGreaterThan(0)
      expect(sample.doneMs).toBeGreaterThan(sample.importedMs)
      expect(sample.processMs).toBeGreaterThan(0)
    }
  }, 120_000)
})
