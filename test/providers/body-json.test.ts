import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { requestBodyBytes } from '../../src/providers/shared/body-json'

/**
 * `requestBodyBytes` must write exactly the UTF-8 of what `JSON.stringify`
 * writes for the body with the trailing members after its own: the request
 * bytes are the prompt cache's key, so one byte of difference would cost every
 * cached token.
 */

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** The body's bytes as text; a byte sequence that is not UTF-8 throws instead of being patched over. */
function requestBodyJson(body: object, lists: readonly string[], trailing: object): string {
  return strictUtf8.decode(requestBodyBytes(body, lists, trailing))
}

/** What `JSON.stringify({ ...body, ...trailing })` writes, built without a spread (a `__proto__` key would not survive one). */
function expected(body: object, trailing: object): string {
  const own = JSON.stringify(body)
  const more = JSON.stringify(trailing).slice(1, -1)
  if (more === '')
    return own
  return own === '{}' ? `{${more}}` : `${own.slice(0, -1)},${more}}`
}

const text = fc.string({ unit: 'binary', maxLength: 12 })
const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined), text)
const item = fc.oneof(
  fc.dictionary(text, value, { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant(undefined),
)
const body = fc.record({
  before: fc.dictionary(text, value, { maxKeys: 4 }),
  messages: fc.option(fc.array(item, { maxLength: 6 }), { nil: undefined }),
  after: fc.dictionary(text, value, { maxKeys: 3 }),
})

function assemble(parts: { before: Record<string, unknown>, messages: unknown[] | undefined, after: Record<string, unknown> }): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null)
  for (const [key, v] of Object.entries(parts.before)) out[key] = v
  out.messages = parts.messages
  for (const [key, v] of Object.entries(parts.after)) {
    if (key !== 'messages')
      out[key] = v
  }
  return out
}

describe('requestBodyBytes', () => {
  it('writes what JSON.stringify writes, for any plain body, on every request that reuses its items', () => {
    fc.assert(fc.property(body, fc.boolean(), (parts, streamed) => {
      const trailing = streamed ? { stream: true } : {}
      const first = assemble(parts)
      expect(requestBodyJson(first, ['messages'], trailing)).toBe(expected(first, trailing))
      // The next request: the same item objects (their JSON remembered) and one more.
      const next = assemble({ ...parts, messages: parts.messages && [...parts.messages, { role: 'user', content: [{ type: 'text', text: 'more' }] }] })
      expect(requestBodyJson(next, ['messages'], trailing)).toBe(expected(next, trailing))
    }), { numRuns: 500 })
  })

  it('encodes each piece as the whole would be encoded: lone surrogates escaped, pairs and non-ASCII text as UTF-8', () => {
    const body = { model: 'm\u00E9', messages: [{ text: 'a\uD800b' }, { text: '\uDC00' }, { text: '\u{1F600} caf\u00E9 \u2028' }], note: '\uD83D' }
    const bytes = requestBodyBytes(body, ['messages'], { stream: true })
    expect([...bytes]).toEqual([...new TextEncoder().encode(expected(body, { stream: true }))])
    expect(strictUtf8.decode(bytes)).toBe(expected(body, { stream: true }))
  })

  it('writes a list it was not told about, and a named member that is not a list, as JSON.stringify does', () => {
    const plain = { model: 'm', messages: 'not a list', tools: [{ name: 'a' }], stream: undefined }
    expect(requestBodyJson(plain, ['messages'], { stream: true })).toBe(expected(plain, { stream: true }))
  })

  it('serializes an item once: a later request does not read an item it has written before', () => {
    let reads = 0
    const counted = (target: object): object => new Proxy(target, {
      get(object, key, receiver) {
        reads++
        return Reflect.get(object, key, receiver)
      },
    })
    const messages = [counted({ role: 'user', content: [{ type: 'text', text: 'go' }] }), counted({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] })]
    const first = requestBodyJson({ model: 'm', messages }, ['messages'], { stream: true })
    expect(reads).toBeGreaterThan(0)
    reads = 0
    const second = requestBodyJson({ model: 'm', messages: [...messages, { role: 'user', content: [] }] }, ['messages'], { stream: true })
    expect(reads).toBe(0)
    expect(first).toBe('{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"text","text":"ok"}]}],"stream":true}')
    expect(second).toBe('{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"text","text":"ok"}]},{"role":"user","content":[]}],"stream":true}')
  })

  it('writes every request of a list that grows, shrinks, changes and shares its first item as JSON.stringify does', () => {
    // Each request's leading items are remembered by the list's first item; any edit must start over where it differs.
    const op = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), items: fc.array(item, { minLength: 1, maxLength: 3 }) }),
      fc.record({ kind: fc.constant('drop' as const), count: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), with: item }),
      fc.record({ kind: fc.constant('other-list' as const), items: fc.array(item, { maxLength: 3 }) }),
      fc.record({ kind: fc.constant('transfer' as const) }),
      fc.record({ kind: fc.constant('two-lists' as const), items: fc.array(item, { maxLength: 3 }) }),
    )
    fc.assert(fc.property(fc.dictionary(text, value, { maxKeys: 3 }), fc.array(op, { maxLength: 12 }), (first, ops) => {
      let messages: unknown[] = [first]
      for (const step of ops) {
        if (step.kind === 'append')
          messages = [...messages, ...step.items]
        else if (step.kind === 'drop')
          messages = messages.slice(0, Math.max(1, messages.length - step.count))
        else if (step.kind === 'replace')
          messages = messages.map((message, i) => (i === step.at % messages.length && i > 0 ? step.with : message))
        // Another list that starts with the same object: the remembered bytes must not leak across.
        const sent = step.kind === 'other-list' ? [first, ...step.items] : messages
        // Two lists of one body that start with the same object.
        const body = step.kind === 'two-lists' ? { model: 'm', messages: sent, tools: [first, ...step.items] } : { model: 'm', messages: sent }
        const bytes = requestBodyBytes(body, ['messages', 'tools'], { stream: true })
        expect(strictUtf8.decode(bytes)).toBe(expected(body, { stream: true }))
        // A fetch may hand the body's buffer to another thread, which leaves it empty here.
        if (step.kind === 'transfer')
          structuredClone(bytes.buffer, { transfer: [bytes.buffer as ArrayBuffer] })
      }
    }), { numRuns: 300 })
  })

  it('keeps two lists of one body apart when they start with the same object', () => {
    const first = { name: 'a' }
    requestBodyBytes({ messages: [first, { name: 'b' }] }, ['messages', 'tools'], {})
    // `c` is as long as `b`: the second list must not take the bytes the first list's entry held before this body.
    const next = { name: 'c' }
    const body = { messages: [first, next], tools: [first, next] }
    expect(requestBodyJson(body, ['messages', 'tools'], {})).toBe(JSON.stringify(body))
  })
})
