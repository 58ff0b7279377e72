import type { AgentOptions } from '../../src/agent/options'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { ServedEndpoint } from '../support/restate-endpoint'
import type { RestateServer } from '../support/restate-server'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as restate from '@restatedev/restate-sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/agent/create-agent'
import { restateAgent, restateRuntime } from '../../src/durable'
import { decodePng } from '../../src/media/png'
import { encodePng } from '../../src/media/png-write'
import { anthropic } from '../../src/providers/anthropic'
import { createMemoryStore } from '../../src/session/stores'
import { shell } from '../../src/tools'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { serveEndpoint } from '../support/restate-endpoint'
import { IngressError, startRestateServer } from '../support/restate-server'

// restateAgent end to end on the real server: the handlers, the start
// runner's defaults under the caller's behavior, terminal errors, suspend
// from outside, and agent.stream() on restateRuntime in a host's handler.

let server: RestateServer
let model: FakeAnthropic
let endpoint: ServedEndpoint
let tasksDir: string
const store = createMemoryStore()
/** What the host handler's tool did. */
const hostEvents: string[] = []
/** Per session: the options the test wants its agent built with. */
const configs = new Map<string, Partial<AgentOptions>>()

const png = (width: number, height: number) => Buffer.from(encodePng({ width, height, data: new Uint8Array(width * height * 4).fill(200) })).toString('base64')

const slowTool = {
  spec: { name: 'wait', description: 'Wait a moment', inputSchema: { type: 'object', properties: {} } },
  isConcurrencySafe: true,
  execute: async () => {
    await new Promise(resolve => setTimeout(resolve, 300))
    return 'waited'
  },
}

/** A tool that runs until its call is aborted (or 10 s), and says when it started and whether it finished. */
function cancellableTool(events: string[]) {
  return {
    spec: { name: 'charge', description: 'Charge the card', inputSchema: { type: 'object', properties: {} } },
    isConcurrencySafe: true,
    execute: async (_input: unknown, ctx: { signal?: AbortSignal }) => {
      events.push('started')
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 10_000)
        ctx.signal?.addEventListener('abort', () => {
          clearTimeout(timer)
          events.push('stopped')
          reject(new Error('stopped'))
        })
      })
      events.push('charged')
      return 'charged'
    },
  }
}

/** Cancel an invocation through the admin API, as an operator would. */
async function cancelInvocation(id: string): Promise<void> {
  const response = await fetch(`${server.adminUrl}/invocations/${id}/cancel`, { method: 'PATCH' })
  expect(response.ok).toBe(true)
}

/** The invocation's answer once it has ended. */
async function attach(id: string): Promise<{ status: number, body: string }> {
  const response = await fetch(`${server.ingressUrl}/restate/invocation/${id}/attach`, { signal: AbortSignal.timeout(30_000) })
  return { status: response.status, body: await response.text() }
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++)
    await new Promise(resolve => setTimeout(resolve, 25))
  expect(check()).toBe(true)
}

beforeAll(async () => {
  tasksDir = await mkdtemp(join(tmpdir(), 'zidane-restate-tasks-'))
  server = await startRestateServer()
  model = await startFakeAnthropic({ fallback: () => ({ type: 'turn', turn: { text: 'Done.' } }) })
  const provider = anthropic({ baseURL: model.url, apiKey: 'test-key', defaultModel: 'claude-test' })
  const agents = restateAgent({
    store,
    maxEntryBytes: 64 * 1024,
    agent: ({ sessionId }) => ({ provider, ...configs.get(sessionId) }),
  })
  const host = restate.object({
    name: 'host',
    handlers: {
      stream: async (ctx: restate.ObjectContext, prompt: string) => {
        const agent = createAgent({ provider, durable: restateRuntime(ctx, { startedAt: await ctx.date.now() }) })
        const kinds: string[] = []
        const stream = agent.stream({ prompt })
        for await (const event of stream)
          kinds.push(event.type)
        return { kinds, text: (await stream.result).text }
      },
      cancellable: async (ctx: restate.ObjectContext, prompt: string) => {
        let cancelled: restate.TerminalError | undefined
        const stop = new AbortController()
        const durable = restateRuntime(ctx, {
          startedAt: await ctx.date.now(),
          onCancel: (error) => {
            cancelled = error
            stop.abort()
          },
        })
        const agent = createAgent({ provider, durable, tools: { charge: cancellableTool(hostEvents) } })
        const stats = await agent.run({ prompt, signal: stop.signal })
        if (cancelled)
          throw cancelled
        return stats.stopReason
      },
    },
  })
  endpoint = await serveEndpoint([agents, host])
  await server.register(endpoint.url)
}, 30_000)

afterAll(async () => {
  await endpoint?.close()
  await model?.close()
  await server?.stop()
  await rm(tasksDir, { recursive: true, force: true })
})

describe('restateAgent', () => {
  it('run answers with the run\'s stats as JSON and stores the session under the object key', async () => {
    model.enqueue({ type: 'turn', turn: { text: 'Hello from the journal.' } })
    const stats = await server.call<any>('/zidane-agent/plain/run', { prompt: 'Say hello.' })
    expect(stats.stopReason).toBe('completed')
    expect(stats.text).toBe('Hello from the journal.')
    const data = await store.load('plain')
    expect(data!.turns.map(turn => turn.role)).toEqual(['user', 'assistant'])
  })

  it('downscales prompt images to 2000 px by default, and the caller\'s maxImageEdge wins', async () => {
    const prompt = [{ type: 'text', text: 'Look.' }, { type: 'image', mediaType: 'image/png', data: png(2400, 4) }]
    await server.call('/zidane-agent/image-default/run', { prompt })
    configs.set('image-caller', { behavior: { maxImageEdge: 1000 } })
    await server.call('/zidane-agent/image-caller/run', { prompt })
    const width = async (id: string) => {
      const image = (await store.load(id))!.turns[0].content.find(block => block.type === 'image') as { data: string }
      return decodePng(Buffer.from(image.data, 'base64')).width
    }
    expect(await width('image-default')).toBe(2000)
    expect(await width('image-caller')).toBe(1000)
  })

  it('ages media out past 80 items by default', async () => {
    const images = Array.from({ length: 90 }).fill({ type: 'image', mediaType: 'image/png', data: png(1, 1) })
    const before = model.requests.length
    await server.call('/zidane-agent/media/run', { prompt: [{ type: 'text', text: 'Many.' }, ...images] })
    const sent = JSON.stringify(model.requests[before].body)
    expect((sent.match(/"type":"image"/g) ?? []).length).toBeLessThanOrEqual(80)
  })

  it('hides background shell tasks by default (a worker\'s task would not outlive it); the caller may turn them back on', async () => {
    const options = (extra: object) => ({ tools: { shell }, behavior: { tasksDir, ...extra } }) as Partial<AgentOptions>
    configs.set('shell-default', options({}))
    configs.set('shell-caller', options({ disableBackgroundTasks: false }))
    const before = model.requests.length
    await server.call('/zidane-agent/shell-default/run', { prompt: 'hi' })
    await server.call('/zidane-agent/shell-caller/run', { prompt: 'hi' })
    const [byDefault, byCaller] = model.requests.slice(before).map(request => JSON.stringify(request.body.tools))
    expect(byDefault).not.toContain('run_in_background')
    expect(byCaller).toContain('run_in_background')
  })

  it('a bad input is a terminal 400, not retried', async () => {
    const error = await server.call('/zidane-agent/bad/run', { prompt: 'x', tools: {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(IngressError)
    expect((error as IngressError).status).toBe(400)
    expect((error as IngressError).body).toContain('Unknown input fields: tools')
  })

  it('a bad model, prompt part or thinking level, or an input nested past what JSON.stringify can write, is a terminal 400', async () => {
    const post = async (key: string, body: string) => {
      const response = await fetch(`${server.ingressUrl}/zidane-agent/${key}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(15_000) })
      return { status: response.status, body: await response.text() }
    }
    const deep = `{"prompt":"hi","metadata":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`
    const cases: [string, string, string][] = [
      ['bad-model-number', JSON.stringify({ prompt: 'hi', model: 42 }), 'model must be'],
      ['bad-model-empty', JSON.stringify({ prompt: 'hi', model: [] }), 'model must be'],
      ['bad-model-target', JSON.stringify({ prompt: 'hi', model: [{ provider: 'anthropic' }] }), 'model[0].model must be a string'],
      ['bad-part', JSON.stringify({ prompt: [42] }), 'prompt[0] must be'],
      ['bad-image', JSON.stringify({ prompt: [{ type: 'image', mediaType: 'image/png' }] }), 'prompt[0].data must be a string'],
      ['bad-thinking', JSON.stringify({ prompt: 'hi', thinking: 'bogus' }), 'thinking must be one of'],
      ['too-deep', deep, 'cannot be written back as JSON'],
    ]
    const before = model.requests.length
    for (const [key, body, message] of cases) {
      const answer = await post(key, body)
      expect({ key, status: answer.status }).toEqual({ key, status: 400 })
      expect(answer.body).toContain(message)
    }
    expect(model.requests.length).toBe(before)
    // What the types allow still runs: a list of ids and targets, and a known thinking level.
    const stats = await server.call<any>('/zidane-agent/good-model/run', { prompt: 'hi', model: ['claude-test', { model: 'claude-other', provider: 'anthropic' }], thinking: 'low' })
    expect(stats.stopReason).toBe('completed')
  })

  it('a model answer over maxEntryBytes ends the run with a terminal 413', async () => {
    model.enqueue({ type: 'turn', turn: { text: 'x'.repeat(100 * 1024) } })
    const error = await server.call('/zidane-agent/huge/run', { prompt: 'Say a lot.' }).catch((e: unknown) => e)
    expect((error as IngressError).status).toBe(413)
    expect((error as IngressError).body).toContain('DurablePayloadTooLargeError')
  })

  it('suspend stops a running run at its next journal boundary; resume continues it', async () => {
    configs.set('long', { tools: { wait: slowTool } })
    model.enqueue(
      { type: 'turn', turn: { text: 'Waiting.', toolCalls: [{ id: 'toolu_w1', name: 'wait', input: {} }] } },
      { type: 'turn', turn: { text: 'Waiting more.', toolCalls: [{ id: 'toolu_w2', name: 'wait', input: {} }] } },
    )
    const running = server.call<any>('/zidane-agent/long/run', { prompt: 'Wait twice.' })
    // Until the run has started (its handler keeps the suspend awakeable in the object's state), there is nothing to suspend.
    let suspended = false
    for (let i = 0; i < 100 && !suspended; i++) {
      suspended = await server.call<boolean>('/zidane-agent/long/suspend', 'end of shift')
      if (!suspended)
        await new Promise(resolve => setTimeout(resolve, 50))
    }
    expect(suspended).toBe(true)
    const stats = await running
    expect(stats.stopReason).toBe('suspended')
    expect(stats.suspended).toBe(true)
    expect(await server.call('/zidane-agent/long/suspend', null)).toBe(false)
    model.enqueue({ type: 'turn', turn: { text: 'Resumed and done.' } })
    const resumed = await server.call<any>('/zidane-agent/long/resume', null)
    expect(resumed.stopReason).toBe('completed')
    expect(resumed.text).toBe('Resumed and done.')
  })

  it('agent.stream() on restateRuntime in a host handler streams live events', async () => {
    model.enqueue({ type: 'turn', turn: { text: ['Stream', 'ing ', 'live.'] } })
    const result = await server.call<{ kinds: string[], text: string }>('/host/h1/stream', 'Stream something.')
    expect(result.text).toBe('Streaming live.')
    expect(result.kinds.filter(kind => kind === 'text').length).toBeGreaterThanOrEqual(3)
  })

  it('a cancelled invocation aborts the run in a tool call: the call gets an aborted result, nothing runs after it, 409', async () => {
    const events: string[] = []
    configs.set('cancel-tool', { tools: { charge: cancellableTool(events) } })
    // Had the run gone on, its next request would get the fallback answer and complete.
    model.enqueue({ type: 'turn', turn: { text: 'Charging.', toolCalls: [{ id: 'toolu_c1', name: 'charge', input: {} }] } })
    const before = model.requests.length
    const id = await server.send('/zidane-agent/cancel-tool/run', { prompt: 'Charge twice.' })
    await until(() => events.length > 0)
    await cancelInvocation(id)
    const answer = await attach(id)
    expect(answer.status).toBe(409)
    expect(answer.body).toContain('Cancelled')
    expect(events).toEqual(['started', 'stopped'])
    expect(model.requests.length - before).toBe(1)
    const data = await store.load('cancel-tool')
    expect(data!.runs.map(run => run.status)).toEqual(['aborted'])
    const results = data!.turns.flatMap(turn => turn.content).filter(block => block.type === 'tool_result')
    expect(results).toHaveLength(1)
    expect(results[0]).toMatchObject({ callId: 'toolu_c1', isError: true })
    expect(JSON.stringify(results[0])).toContain('Aborted')
  })

  it('a cancelled invocation aborts the run in a model call: no provider error, no tool, 409', async () => {
    const events: string[] = []
    configs.set('cancel-model', { tools: { charge: cancellableTool(events) } })
    model.enqueue({ type: 'turn', delayMs: 2000, turn: { text: 'Charging.', toolCalls: [{ id: 'toolu_m1', name: 'charge', input: {} }] } })
    const before = model.requests.length
    const id = await server.send('/zidane-agent/cancel-model/run', { prompt: 'Charge.' })
    await until(() => model.requests.length > before)
    await cancelInvocation(id)
    const answer = await attach(id)
    expect(answer.status).toBe(409)
    expect(answer.body).not.toContain('AgentProviderError')
    // Longer than the model's delay: its answer, had the run gone on, would have started the tool by now.
    await new Promise(resolve => setTimeout(resolve, 2500))
    expect(events).toEqual([])
    expect(model.requests.length - before).toBe(1)
    const data = await store.load('cancel-model')
    expect(data!.runs.map(run => run.status)).toEqual(['aborted'])
  })

  it('a cancelled invocation waiting out a retry backoff stops at once, not when the wait ends', async () => {
    // Ten minutes of backoff: before, the wait was a timer in the process that Restate could not reach, so the
    // cancellation was seen only at the next step, once the wait was over.
    configs.set('cancel-backoff', { behavior: { retry: { initialDelayMs: 600_000, maxDelayMs: 600_000 } } })
    model.enqueue({ type: 'error', status: 529 })
    const before = model.requests.length
    const id = await server.send('/zidane-agent/cancel-backoff/run', { prompt: 'Try.' })
    await until(() => model.requests.length > before)
    // Past the failed attempt's journal step, into the wait.
    await new Promise(resolve => setTimeout(resolve, 500))
    await cancelInvocation(id)
    const answer = await attach(id)
    expect(answer.status).toBe(409)
    expect(model.requests.length - before).toBe(1)
    const data = await store.load('cancel-backoff')
    expect(data!.runs.map(run => run.status)).toEqual(['aborted'])
  })

  it('suspend answers false once the run\'s invocation was killed (no handler is left to stop)', async () => {
    const events: string[] = []
    configs.set('killed', { tools: { charge: cancellableTool(events) } })
    model.enqueue({ type: 'turn', turn: { text: 'Charging.', toolCalls: [{ id: 'toolu_k1', name: 'charge', input: {} }] } })
    const id = await server.send('/zidane-agent/killed/run', { prompt: 'Charge.' })
    await until(() => events.length > 0)
    expect(await server.call('/zidane-agent/killed/suspend', null)).toBe(true)
    const response = await fetch(`${server.adminUrl}/invocations/${id}/kill`, { method: 'PATCH' })
    expect(response.ok).toBe(true)
    expect((await attach(id)).status).toBe(409)
    expect(await server.call('/zidane-agent/killed/suspend', 'too late')).toBe(false)
    // The tool in flight was stopped (its signal aborted), and nothing of the killed attempt was recorded after
    // the kill: no result, and the run still reads as running, for a resume to continue as after a crash.
    await until(() => events.includes('stopped'))
    expect(events).toEqual(['started', 'stopped'])
    const data = await store.load('killed')
    expect(data!.runs.map(run => run.status)).toEqual(['running'])
    expect(data!.turns.flatMap(turn => turn.content).some(block => block.type === 'tool_result')).toBe(false)
  })

  it('restateRuntime\'s onCancel lets a host handler abort its agent when the invocation is cancelled', async () => {
    model.enqueue({ type: 'turn', turn: { text: 'Charging.', toolCalls: [{ id: 'toolu_h1', name: 'charge', input: {} }] } })
    const before = model.requests.length
    const id = await server.send('/host/h2/cancellable', 'Charge.')
    await until(() => hostEvents.length > 0)
    await cancelInvocation(id)
    const answer = await attach(id)
    expect(answer.status).toBe(409)
    expect(hostEvents).toEqual(['started', 'stopped'])
    expect(model.requests.length - before).toBe(1)
  })
})
