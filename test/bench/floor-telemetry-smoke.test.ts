import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import type { BenchProvider } from '../../bench/loop-script'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { floorRunner, zidaneRunner } from '../../bench/loop-runners'
import { startBenchServer } from '../../bench/loop-script'
import { otelHarness } from '../telemetry/otel-harness'

// loop-overhead prints telemetry's cost in zidane beside the cost of the same
// spans and metrics written by hand into the floor. That comparison is fair
// only if both record the same things: the same spans, each with the same
// attribute names, and the same histogram records. No timings here.

const TURNS = 4

/** Each span's name (the model and tool names kept) with its sorted attribute names, sorted. */
function shapes(spans: readonly ReadableSpan[]): string[] {
  return spans.map(span => `${span.name} [${Object.keys(span.attributes).sort().join(' ')}]`).sort()
}

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'zidane-floor-telemetry-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe.each(['anthropic', 'openai-chat', 'openai-responses'] as const)('floor telemetry by hand: %s', (provider: BenchProvider) => {
  it('records the spans, attributes and histogram points zidane records for the same run', async () => {
    const server = await startBenchServer(provider, TURNS, 2)
    try {
      const floorOtel = otelHarness()
      const zidaneOtel = otelHarness()
      const shared = { baseURL: server.url, maxTurns: TURNS + 5 }
      const floor = await floorRunner(provider, { ...shared, dir: join(dir, 'floor'), telemetry: { tracer: floorOtel.tracer, meter: floorOtel.meter, agentName: 'bench' } })()
      const zidane = await zidaneRunner(provider, 'defaults', true, { ...shared, dir: join(dir, 'zidane'), telemetry: { tracer: zidaneOtel.tracer, meter: zidaneOtel.meter, agentName: 'bench' } })()
      expect(floor.turns).toBe(TURNS)
      expect(zidane.turns).toBe(TURNS)

      const floorSpans = floorOtel.spans()
      const zidaneSpans = zidaneOtel.spans()
      // One run span, a chat span per turn, an execute_tool span per call.
      expect(floorSpans).toHaveLength(1 + TURNS + 2 * (TURNS - 1))
      expect(shapes(floorSpans)).toEqual(shapes(zidaneSpans))
      // Each span hangs under the run's span.
      const run = floorSpans.find(span => span.name.startsWith('invoke_agent'))!
      for (const span of floorSpans.filter(each => each !== run))
        expect(span.parentSpanContext?.spanId).toBe(run.spanContext().spanId)

      for (const name of ['gen_ai.client.token.usage', 'gen_ai.client.operation.duration', 'gen_ai.client.operation.time_to_first_chunk']) {
        const count = async (otel: ReturnType<typeof otelHarness>) =>
          (await otel.histogram(name))?.dataPoints.reduce((sum, point) => sum + point.value.count, 0)
        expect(await count(floorOtel), name).toBe(await count(zidaneOtel))
        expect(await count(floorOtel), name).toBeGreaterThanOrEqual(TURNS)
      }
    }
    finally {
      await server.close()
    }
  })
})
