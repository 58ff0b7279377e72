import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { openaiCompat } from '../../src/providers/openai-compat'

// Neuralwatt measures the energy of each request and reports it in joules:
// streamed, as an SSE comment line `: energy {…}` before `[DONE]`; the turn's
// usage carries it as `energyJoules`.

let server: Server | undefined

afterEach(async () => {
  await new Promise<void>(resolve => server ? server.close(() => resolve()) : resolve())
  server = undefined
})

/** A Chat Completions endpoint that answers every request with `body`, as an event stream. */
async function endpoint(body: string): Promise<string> {
  server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end(body)
    })
  })
  await new Promise<void>(resolve => server!.listen(0, '127.0.0.1', () => resolve()))
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`
}

const chunk = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`
const answer = chunk({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] })
const usage = chunk({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 3 } })

async function usageOf(body: string) {
  const provider = openaiCompat({ baseURL: await endpoint(body), defaultModel: 'glm-5', name: 'neuralwatt' })
  const stats = await createAgent({ provider }).run({ prompt: 'hello' })
  expect(stats.text).toBe('hi')
  return stats.turnUsage![0]
}

describe('energy reports', () => {
  it('an `: energy {…}` comment line fills energyJoules', async () => {
    const turn = await usageOf(`${answer}${usage}: energy {"energy_joules":15.23,"energy_kwh":4.23e-6,"avg_power_watts":78.5}\n\ndata: [DONE]\n\n`)
    expect(turn).toMatchObject({ input: 12, output: 3, energyJoules: 15.23 })
  })

  it('an `energy` object on a data chunk fills it too', async () => {
    const turn = await usageOf(`${answer}${chunk({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 3 }, energy: { energy_joules: 2.5 } })}data: [DONE]\n\n`)
    expect(turn.energyJoules).toBe(2.5)
  })

  it('is absent without a report, and a report that is not a finite, non-negative number is ignored', async () => {
    expect(await usageOf(`${answer}${usage}: keep-alive\n\ndata: [DONE]\n\n`)).not.toHaveProperty('energyJoules')
    expect(await usageOf(`${answer}${usage}: energy not-json\n: energy {"energy_joules":-4}\n: energy {"energy_joules":"9"}\n\ndata: [DONE]\n\n`)).not.toHaveProperty('energyJoules')
  })
})
