import { TerminalError } from '@restatedev/restate-sdk'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseRunInput } from '../../src/durable/restate/run-input'
import { asRestateFailure, RestateInputError } from '../../src/durable/restate/terminal'
import { AgentBudgetExceededError, DurablePayloadTooLargeError, SessionStoreError } from '../../src/errors'

describe('the input of run and resume', () => {
  it('takes the JSON fields of AgentRunOptions, and nothing for null', () => {
    expect(parseRunInput(null, 1024)).toEqual({})
    const input = { prompt: 'hi', model: 'claude-test', system: 's', behavior: { maxTurns: 3 }, metadata: { a: 1 }, runLabel: 'x' }
    expect(parseRunInput(input, 1024)).toEqual(input)
  })

  it('refuses anything else before any work, as a typed error', () => {
    expect(() => parseRunInput('prompt', 1024)).toThrow(RestateInputError)
    expect(() => parseRunInput([1], 1024)).toThrow(RestateInputError)
    expect(() => parseRunInput({ prompt: 3 }, 1024)).toThrow(/prompt must be/)
    expect(() => parseRunInput({ behavior: [] }, 1024)).toThrow(/behavior must be a JSON object/)
    expect(() => parseRunInput({ system: 1 }, 1024)).toThrow(/system must be a string/)
    expect(() => parseRunInput({ prompt: 'x'.repeat(2000) }, 1024)).toThrow(/over the 1024-byte limit/)
  })

  it('checks model, prompt parts and thinking as AgentRunOptions types them', () => {
    const ok = { prompt: [{ type: 'text', text: 'hi' }, { type: 'document', data: 'x', encoding: 'text', mediaType: 'text/plain', name: 'a.txt' }], model: ['m1', { model: 'm2', provider: 'p', contextWindow: 1000 }], thinking: 'high' }
    expect(parseRunInput(ok, 1 << 20)).toEqual(ok)
    expect(() => parseRunInput({ model: [{ model: 'm', extra: 1 }] }, 1024)).toThrow(/Unknown fields in model\[0\]: extra/)
    expect(() => parseRunInput({ model: [{ model: 'm', contextWindow: -1 }] }, 1024)).toThrow(/contextWindow must be a positive number/)
    expect(() => parseRunInput({ model: ['m', 7] }, 1024)).toThrow(/model\[1\] must be/)
    expect(() => parseRunInput({ prompt: [{ type: 'document', data: 'x', encoding: 'hex', mediaType: 'text/plain' }] }, 1024)).toThrow(/encoding must be/)
    expect(() => parseRunInput({ prompt: [{ type: 'text', text: 'hi', origin: 'system-note' }] }, 1024)).toThrow(/Unknown fields in prompt\[0\]: origin/)
    expect(() => parseRunInput({ prompt: [{ type: 'toString', text: 'hi' }] }, 1024)).toThrow(/type must be one of/)
  })

  it('refuses every object with a field that is not one of the run fields', () => {
    const allowed = new Set(['prompt', 'model', 'system', 'thinking', 'behavior', 'metadata', 'modelOptions', 'runLabel'])
    fc.assert(fc.property(fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 5 }), (raw) => {
      fc.pre(Object.keys(raw).some(key => !allowed.has(key)))
      expect(() => parseRunInput(raw, 1 << 20)).toThrow(RestateInputError)
    }))
  })
})

describe('which failures Restate may retry', () => {
  const code = (error: unknown) => (asRestateFailure(error) as TerminalError).code

  it('a run that failed for good becomes a terminal error, with a code per kind', () => {
    expect(asRestateFailure(new AgentBudgetExceededError('cost', 1, 2))).toBeInstanceOf(TerminalError)
    expect(code(new AgentBudgetExceededError('cost', 1, 2))).toBe(500)
    expect(code(new DurablePayloadTooLargeError('tool:x', 10, 5))).toBe(413)
    expect(code(new RestateInputError('bad'))).toBe(400)
    expect(asRestateFailure(new TypeError('a bug'))).toBeInstanceOf(TerminalError)
    expect((asRestateFailure(new TypeError('a bug')) as Error).message).toBe('TypeError: a bug')
  })

  it('a store that could not be reached stays retryable, as do Restate\'s own errors', () => {
    const unreachable = new SessionStoreError('down', 'io')
    expect(asRestateFailure(unreachable)).toBe(unreachable)
    expect(asRestateFailure(new SessionStoreError('gone', 'not_found'))).toBeInstanceOf(TerminalError)
    const terminal = new TerminalError('already terminal', { errorCode: 409 })
    expect(asRestateFailure(terminal)).toBe(terminal)
  })
})
