import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runCodemode } from './helpers'

// Whatever a script prints or returns, the model reads bounded, well-formed
// UTF-16: lone surrogates become U+FFFD, and past the limits text is cut
// (never inside a surrogate pair) with a note.

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

function wellFormed(text: string): string {
  return text.replace(new RegExp(LONE.source, 'g'), '\uFFFD')
}

const piece = fc.string({ unit: 'binary', maxLength: 40 })

describe('script output, property', () => {
  it('is bounded and well-formed UTF-16, and exact when within the limits', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ text: piece, times: fc.oneof(fc.constant(1), fc.nat(3000)) }), { maxLength: 6 }),
      fc.oneof(fc.jsonValue({ maxDepth: 3 }), piece.map(text => ({ text }))),
      async (prints, value) => {
        const code = [
          `for (const { text, times } of ${JSON.stringify(prints)}) console.log(text.repeat(times))`,
          `return ${JSON.stringify(value)}`,
        ].join('\n')
        const { text, result } = await runCodemode(code)
        expect(result.isError).toBeFalsy()
        expect(LONE.test(text)).toBe(false)
        expect(text.length).toBeLessThanOrEqual(40_000 + 40_000 + 500)
        const lines = prints.map(({ text: line, times }) => line.repeat(times))
        const printedChars = lines.reduce((sum, line) => sum + line.length + 1, 0)
        const returned = JSON.stringify(value)
        if (printedChars <= 40_000 && returned.length <= 40_000)
          expect(text).toBe(wellFormed([...lines, `Returned: ${returned}`].join('\n')))
      },
    ), { numRuns: 30 })
  }, 120_000)
})
