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
})
