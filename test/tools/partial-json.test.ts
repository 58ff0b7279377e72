import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePartialJson } from '../../src/tools/output-schema'
import { PartialJsonReader } from '../../src/tools/partial-json'

// The incremental reader must give, after every delta, exactly what
// `parsePartialJson` gives for the text so far, whatever the cut points.

/** Cut `text` at the given (sorted, deduplicated) offsets. */
function cut(text: string, offsets: number[]): string[] {
  const points = [...new Set(offsets.map(offset => offset % (text.length + 1)))].sort((a, b) => a - b)
  const pieces: string[] = []
  let start = 0
  for (const point of [...points, text.length]) {
    if (point > start)
      pieces.push(text.slice(start, point))
    start = Math.max(start, point)
  }
  return pieces
}

/** Feed the pieces; after each, the reader's value (or the fallback) must equal the one-shot reading of the prefix. */
function expectSameAsOneShot(pieces: string[], valid = false): void {
  const reader = new PartialJsonReader()
  let text = ''
  const marks: { text: string, mark: ReturnType<PartialJsonReader['mark']> }[] = []
  for (const piece of pieces) {
    reader.push(piece)
    text += piece
    const mark = reader.mark()
    // On a prefix of valid JSON the reader never hands over.
    if (valid)
      expect(mark).toBeDefined()
    marks.push({ text, mark })
    const value = mark ? mark.value() : parsePartialJson(text)
    expect(value).toStrictEqual(parsePartialJson(text))
  }
  // A mark read late (after more text arrived) still shows its own prefix.
  for (const { text: prefix, mark } of marks) {
    if (mark)
      expect(mark.value()).toStrictEqual(parsePartialJson(prefix))
  }
}

const offsets = fc.array(fc.nat({ max: 400 }), { maxLength: 40 })

describe('partial JSON reader', () => {
  it('matches parsePartialJson after every delta of compact JSON', () => {
    fc.assert(fc.property(fc.jsonValue(), offsets, (value, at) => {
      expectSameAsOneShot(cut(JSON.stringify(value), at), true)
    }), { numRuns: 500 })
  })

  it('matches parsePartialJson on indented JSON and on single characters', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
      const text = JSON.stringify(value, null, 2)
      expectSameAsOneShot([...text], true)
    }), { numRuns: 200 })
  })

  it('matches parsePartialJson on strings full of escapes, cut inside them', () => {
    const tricky = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\t', '\u0001', 'é', '\uD83D', '\uDE00', '/', 'u') })
    fc.assert(fc.property(fc.dictionary(tricky, tricky, { maxKeys: 3 }), offsets, (value, at) => {
      expectSameAsOneShot(cut(JSON.stringify({ list: Object.values(value), value }), at), true)
    }), { numRuns: 300 })
  })

  it('hands over to parsePartialJson on text that is not JSON, with the same result', () => {
    const broken = fc.tuple(fc.jsonValue(), fc.nat(), fc.constantFrom('x', '}', ']', ',', ':', '"', '01', '\n', '1.', 'tx', '{"a" 1}')).map(([value, at, junk]) => {
      const text = JSON.stringify(value)
      const split = at % (text.length + 1)
      return `${text.slice(0, split)}${junk}${text.slice(split)}`
    })
    fc.assert(fc.property(broken, offsets, (text, at) => {
      expectSameAsOneShot(cut(text, at))
    }), { numRuns: 500 })
  })

  it('reads the cases the one-shot reader documents', () => {
    for (const text of ['{"city": "Ljub', '{"city": "Ljubljana", "cel', '{"tags": ["a", "b', '{"a": "x\\', '{"a": tr', '', '  ', '"ab\\u00', '{"__proto__": {"x": 1}, "a": 1, "a": 2', '[1, 2.', '-', '{"a": {"b": [1, {"c": nu'])
      expectSameAsOneShot(cut(text, [1, 3, 5, 8, 13]))
  })

  it('keeps an own __proto__ member, as JSON.parse does', () => {
    const reader = new PartialJsonReader()
    reader.push('{"__proto__": {"polluted": true}, "b": 1')
    const value = reader.mark()!.value() as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(['__proto__', 'b'])
  })
})
