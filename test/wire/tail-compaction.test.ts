import type { SessionMessage } from '../../src/core/content'
import type { FakeAnthropic } from '../support/fake-anthropic'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { compactedOutputStub, compactTail, effectiveTailThreshold, tailCompactionSkipped, tailFrontier } from '../../src/wire/stages/tail-compaction'
import { deepFreeze } from '../support/deep-freeze'
import { startFakeAnthropic } from '../support/fake-anthropic'

// The tail frontier is a pure function of the message prefix: appending
// messages can only move it forward, a stub is the same bytes every time, and
// between two frontier steps every request extends the previous one.

const messageArb: fc.Arbitrary<SessionMessage> = fc.oneof(
  fc.constant(null).map((): SessionMessage => ({ role: 'assistant', content: [{ type: 'text', text: 'working' }] })),
  fc.tuple(fc.nat({ max: 999 }), fc.integer({ min: 0, max: 3000 }), fc.constantFrom('x', 'é', '日')).map(([id, size, letter]) => ({
    role: 'user' as const,
    content: [{ type: 'tool_result' as const, callId: `c${id}`, output: letter.repeat(size) }],
  })),
  fc.tuple(fc.nat({ max: 999 }), fc.integer({ min: 0, max: 800 })).map(([id, size]) => ({
    role: 'user' as const,
    content: [{ type: 'tool_result' as const, callId: `m${id}`, output: [{ type: 'text' as const, text: 'y'.repeat(size) }, { type: 'image' as const, mediaType: 'image/png', data: 'AAAA' }] }],
  })),
)
const configArb = fc.record({
  threshold: fc.integer({ min: 0, max: 8000 }),
  keepTurns: fc.integer({ min: 0, max: 6 }),
  lowWater: fc.option(fc.double({ min: -0.5, max: 1.5, noNaN: true }), { nil: undefined }),
})

describe('the tail frontier', () => {
  it('never moves back as messages are appended, and each output message is byte-stable between steps', () => {
    fc.assert(fc.property(fc.array(messageArb, { maxLength: 30 }), configArb, (messages, { threshold, keepTurns, lowWater }) => {
      deepFreeze(messages)
      let previousFrontier = 0
      let previous: string[] = []
      for (let n = 0; n <= messages.length; n++) {
        const prefix = messages.slice(0, n)
        const frontier = tailFrontier(prefix, threshold, keepTurns, lowWater)
        expect(frontier).toBeGreaterThanOrEqual(previousFrontier)
        expect(frontier).toBeLessThanOrEqual(Math.max(0, n - keepTurns))
        const out = compactTail(prefix, threshold, keepTurns, lowWater).map(message => JSON.stringify(message))
        // Deterministic, and a pure function of the prefix: the same input gives the same bytes.
        expect(compactTail(structuredClone(prefix), threshold, keepTurns, lowWater).map(message => JSON.stringify(message))).toEqual(out)
        if (frontier === previousFrontier)
          expect(out.slice(0, previous.length)).toEqual(previous)
        // Messages the frontier passed stay stubbed: a stub is never taken back.
        for (let i = 0; i < previousFrontier; i++)
          expect(out[i]).toBe(previous[i])
        previousFrontier = frontier
        previous = out
      }
    }), { numRuns: 300 })
  })

  it('stubs text only, keeps media, and a stub is a function of the output alone', () => {
    const media: SessionMessage = { role: 'user', content: [{ type: 'tool_result', callId: 'c1', output: [{ type: 'text', text: 'z'.repeat(100) }, { type: 'image', mediaType: 'image/png', data: 'AAAA' }] }] }
    const last: SessionMessage = { role: 'user', content: [{ type: 'tool_result', callId: 'c2', output: 'w'.repeat(100) }] }
    const [stubbed, kept] = compactTail([media, last], 50, 1)
    expect(stubbed.content[0]).toMatchObject({ output: [{ type: 'text', text: compactedOutputStub(100) }, { type: 'image', data: 'AAAA' }] })
    expect(kept).toBe(last)
  })

  it('with a low-water mark, one step trims to the mark and then waits', () => {
    const result = (id: number): SessionMessage => ({ role: 'user', content: [{ type: 'tool_result', callId: `c${id}`, output: 'x'.repeat(100) }] })
    const frontiers: number[] = []
    const messages: SessionMessage[] = []
    for (let i = 0; i < 12; i++) {
      messages.push(result(i))
      frontiers.push(tailFrontier(messages, 500, 0, 0.4))
    }
    // 600 bytes pass 500: one step trims to 200 (frontier 4); it waits until 600 again (message 9) and trims
    // again: steps are (1 - 0.4) × 500 bytes of new output apart.
    expect(frontiers).toEqual([0, 0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8])
    // Without it, the largest suffix under the threshold: the frontier moves on every message past the line.
    const plain = messages.map((_, i) => tailFrontier(messages.slice(0, i + 1), 500, 0))
    expect(plain).toEqual([0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7])
  })

  it('scales the threshold with a known window, and matches compactSkip as documented', () => {
    expect(effectiveTailThreshold({ threshold: 131_072, windowFraction: 0.25 }, 1_000_000)).toBe(1_000_000)
    expect(effectiveTailThreshold({ threshold: 131_072, windowFraction: 0.25 }, 128_000)).toBe(131_072)
    expect(effectiveTailThreshold({ threshold: 131_072, windowFraction: 0.25 }, undefined)).toBe(131_072)
    expect(tailCompactionSkipped({}, { providerName: 'any' })).toBe(true)
    expect(tailCompactionSkipped({ providers: ['anthropic'] }, { providerName: 'openai' })).toBe(false)
    expect(tailCompactionSkipped({ minContextWindow: 500_000 }, { providerName: 'anthropic' })).toBe(false)
    expect(tailCompactionSkipped({ minContextWindow: 500_000, providers: ['anthropic'] }, { providerName: 'anthropic', contextWindow: 1_000_000 })).toBe(true)
    expect(tailCompactionSkipped(undefined, { providerName: 'anthropic' })).toBe(false)
  })
})

describe('a tail-compacted run against the fake Anthropic server', () => {
  let fake: FakeAnthropic
  beforeEach(async () => {
    fake = await startFakeAnthropic()
  })
  afterEach(async () => {
    await fake.close()
  })

  /** Each request's units as in the byte-prefix test: one block (with its role) at a time, breakpoints left out. */
  function units(body: any): string[] {
    const strip = (value: unknown) => JSON.stringify(value, (key, inner) => key === 'cache_control' ? undefined : inner)
    return [strip(body.system), strip(body.tools), ...body.messages.flatMap((message: any) =>
      (typeof message.content === 'string' ? [message.content] : message.content).map((block: unknown) => `${message.role}:${strip(block)}`))]
  }

  it('sends requests that extend the previous one except at frontier steps, whose count the stubs show', async () => {
    const turns = 40
    for (let i = 0; i < turns; i++)
      fake.enqueue({ type: 'turn', turn: { toolCalls: [{ id: `toolu_${i}`, name: 'dump', input: { n: i } }] } })
    fake.enqueue({ type: 'turn', turn: { text: 'done' } })
    const dump = tool({ name: 'dump', description: 'Print', input: z.object({ n: z.number() }), execute: ({ n }) => `${n}:`.padEnd(1000 + (n % 7) * 100, '.') })
    const agent = createAgent({
      provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-sonnet-4-6' }),
      tools: { dump },
      behavior: { compactStrategy: 'tail', compactThreshold: 8000, compactKeepTurns: 2, compactLowWaterFraction: 0.5 },
    })
    await agent.run({ prompt: 'go' })

    const requests = fake.requests.map(request => units(request.body))
    const stubs = fake.requests.map(request => (JSON.stringify(request.body.messages).match(/tool output compacted/g) ?? []).length)
    let rewrites = 0
    let steps = 0
    for (let n = 1; n < requests.length; n++) {
      const before = requests[n - 1]
      const after = requests[n]
      if (before.some((unit, i) => after[i] !== unit))
        rewrites++
      if (stubs[n] > stubs[n - 1])
        steps++
      expect(stubs[n]).toBeGreaterThanOrEqual(stubs[n - 1])
    }
    expect(steps).toBeGreaterThan(2)
    expect(rewrites).toBe(steps)
    // The tool output kept verbatim stays under the threshold on every request.
    for (const request of fake.requests) {
      const kept = request.body.messages.flatMap((message: any) => Array.isArray(message.content) ? message.content : [])
        .filter((block: any) => block.type === 'tool_result')
        .map((block: any) => typeof block.content === 'string' ? block.content : block.content.map((part: any) => part.text ?? '').join(''))
        .filter((text: string) => !text.startsWith('[tool output compacted'))
        .reduce((sum: number, text: string) => sum + text.length, 0)
      expect(kept).toBeLessThanOrEqual(8000)
    }
  })
})
