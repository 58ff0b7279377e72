import { describe, expect, it } from 'vitest'
import { streamDeltas } from '../../bench/stream-deltas'

// The stream-deltas benchmark in a small mode, for correctness only: on both
// wires, with and without the readers of partial input, every run's tool (or
// structured output) received exactly the argument streamed in 24-character
// deltas, and every run completed. No timing is asserted.

describe('stream-deltas benchmark, small mode', () => {
  it('delivers every streamed argument intact, on both wires and in every configuration', async () => {
    const results = await streamDeltas({ sizesKb: [2, 8], runs: 2, print: false })
    expect(results.map(result => `${result.provider} ${result.variant}`)).toEqual([
      'anthropic floor',
      'anthropic plain',
      'anthropic tool-input',
      'anthropic output-partial',
      'openai-chat floor',
      'openai-chat plain',
      'openai-chat tool-input',
      'openai-chat output-partial',
    ])
    for (const result of results) {
      expect(result.correct, `${result.provider} ${result.variant}`).toBe(true)
      expect(result.sizes.map(size => size.kb)).toEqual([2, 8])
    }
  }, 60_000)
})
