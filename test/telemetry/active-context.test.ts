import type { Context, ContextManager } from '@opentelemetry/api'
import type { DecisionQuestions, ToolDef } from '../../src'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { AsyncLocalStorage } from 'node:async_hooks'
import { context, ROOT_CONTEXT } from '@opentelemetry/api'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { otelHarness, parentOf, spansNamed } from './otel-harness'

/** A context manager on `AsyncLocalStorage`, as the Node SDK registers one (its package is not a dependency here). */
class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>()
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args))
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function')
      return target
    const run = (...args: unknown[]) => this.with(ctx, () => (target as (...a: unknown[]) => unknown)(...args))
    return run as T
  }

  enable(): this {
    return this
  }

  disable(): this {
    this.storage.disable()
    return this
  }
}

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
  context.setGlobalContextManager(new StorageContextManager())
})
afterEach(async () => {
  context.disable()
  await fake.close()
})

const provider = () => anthropic({ apiKey: 'test-key', baseURL: fake.url, defaultModel: 'claude-test' })

describe('with a host\'s context manager', () => {
  it('the run hangs under the caller\'s active span, and a tool\'s own spans under its execute_tool span', async () => {
    const otel = otelHarness()
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_q', name: 'query', input: {} }] } },
      { type: 'turn', turn: { text: 'done' } },
    )
    const query: ToolDef = {
      spec: { name: 'query', description: 'queries a database', inputSchema: { type: 'object' } },
      async execute() {
        // The host's own instrumentation: a span on the active context, as a database client makes one.
        const span = otel.tracer.startSpan('db.query')
        await new Promise(resolve => setTimeout(resolve, 1))
        span.end()
        return 'rows'
      },
    }
    const agent = createAgent({ provider: provider(), tools: { query }, telemetry: { tracer: otel.tracer } })
    await otel.tracer.startActiveSpan('http.request', async (request) => {
      await agent.run({ prompt: 'go' })
      request.end()
    })
    const spans = otel.spans()
    const [request] = spansNamed(spans, 'http.request')
    const [invoke] = spansNamed(spans, 'invoke_agent')
    const [tool] = spansNamed(spans, 'execute_tool query')
    const [db] = spansNamed(spans, 'db.query')
    expect(parentOf(invoke)).toBe(request.spanContext().spanId)
    expect(parentOf(db)).toBe(tool.spanContext().spanId)
    expect(new Set(spans.map(span => span.spanContext().traceId)).size).toBe(1)
  })

  it('agent.decide outside a run hangs under the caller\'s active span', async () => {
    const otel = otelHarness()
    fake.enqueue({ type: 'turn', turn: { toolCalls: [{ name: 'record_answers', input: { safe: { value: true, refused: false, reason: 'read-only' } } }] } })
    const questions = { safe: { kind: 'predicate', question: 'Is the command safe to run?' } } as const satisfies DecisionQuestions
    const agent = createAgent({ provider: provider(), telemetry: { tracer: otel.tracer } })
    await otel.tracer.startActiveSpan('review', async (review) => {
      await agent.decide({ input: 'ls', questions })
      review.end()
    })
    const [review] = spansNamed(otel.spans(), 'review')
    const [chat] = spansNamed(otel.spans(), 'chat ')
    expect(parentOf(chat)).toBe(review.spanContext().spanId)
  })
})
