/**
 * A durable run on Restate: `restateAgent` serves one virtual object per
 * session; Restate journals each model result, tool result, clock read and
 * id, so a worker that dies resumes mid-run without repeating a side effect.
 *
 *   node --import tsx examples/durable-restate.ts
 *
 * The example starts everything it needs on 127.0.0.1: the Restate server
 * (the binary the `@restatedev/restate-server` package ships, telemetry off,
 * a temporary data directory), this process as the worker, and, without
 * ANTHROPIC_API_KEY, a scripted model. It runs a prompt through Restate's
 * ingress, then sends the same invocation again with its idempotency key:
 * Restate answers from the journal, and the model is not asked again.
 */
import type { AddressInfo } from 'node:net'
import type { FakeModelServer } from 'zidane/testing'
import { spawn } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer as createHttp2Server } from 'node:http2'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import * as restate from '@restatedev/restate-sdk'
import { tool } from 'zidane'
import { restateAgent } from 'zidane/durable'
import { anthropic } from 'zidane/providers/anthropic'
import { createFileStore } from 'zidane/session'
import { startFakeModelServer } from 'zidane/testing'
import { z } from 'zod'

const work = mkdtempSync(join(tmpdir(), 'zidane-example-restate-'))
const ledger = join(work, 'ledger.txt')

// A tool with a side effect: it appends to a ledger. Journaled, it never runs twice for one call.
const charge = tool({
  name: 'charge',
  description: 'Charge an order, in cents.',
  input: z.object({ order: z.string(), cents: z.number().int().positive() }),
  async execute({ order, cents }) {
    appendFileSync(ledger, `${order} ${cents}\n`)
    return `charged ${order}: ${cents} cents`
  },
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
let model: FakeModelServer | undefined
if (!live) {
  model = await startFakeModelServer({
    script: [
      { text: 'Charging both orders.', toolCalls: [{ name: 'charge', input: { order: 'A-1', cents: 500 } }, { name: 'charge', input: { order: 'A-2', cents: 125 } }] },
      { text: 'Both orders are charged: 6.25 in total.' },
    ],
  })
  console.log(`[offline] ANTHROPIC_API_KEY is not set: a scripted model answers at ${model.url}`)
}

/** The Restate server from node_modules, on free loopback ports; stopped by its PID. */
async function startRestate() {
  const [admin, ingress, node] = [await freePort(), await freePort(), await freePort()]
  const pkg = createRequire(import.meta.url).resolve(`@restatedev/restate-server-${process.platform}-${process.arch}/package.json`)
  const server = spawn(join(dirname(pkg), 'bin', 'restate-server'), ['--no-logo', '--base-dir', join(work, 'restate'), '--node-name', 'example'], {
    env: {
      PATH: process.env.PATH,
      RESTATE_DISABLE_TELEMETRY: 'true',
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${node}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${node}/`,
    },
    stdio: 'ignore',
  })
  const adminUrl = `http://127.0.0.1:${admin}`
  for (let i = 0; i < 200; i++) {
    if (await fetch(`${adminUrl}/health`).then(r => r.ok, () => false) && await fetch(`http://127.0.0.1:${ingress}/restate/health`).then(r => r.ok, () => false))
      break
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  return { server, adminUrl, ingressUrl: `http://127.0.0.1:${ingress}` }
}

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise(resolve => probe.close(resolve))
  return port
}

const { server, adminUrl, ingressUrl } = await startRestate()
// This process is the worker: one virtual object, `zidane-agent`, keyed by session id.
const worker = createHttp2Server()
try {
  const agentObject = restateAgent({
    store: createFileStore({ dir: join(work, 'sessions') }),
    agent: () => ({
      provider: model ? anthropic({ baseURL: model.url, apiKey: 'offline' }) : anthropic(),
      tools: { charge },
      system: 'Charge what you are asked to charge. Be brief.',
    }),
  })
  worker.on('request', restate.createEndpointHandler({ services: [agentObject] }))
  await new Promise<void>(resolve => worker.listen(0, '127.0.0.1', resolve))
  const registered = await fetch(`${adminUrl}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: `http://127.0.0.1:${(worker.address() as AddressInfo).port}` }),
  })
  if (!registered.ok)
    throw new Error(`registering the worker failed: ${await registered.text()}`)

  const invoke = () => fetch(`${ingressUrl}/zidane-agent/order-42/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'order-42-charge' },
    body: JSON.stringify({ prompt: 'Charge order A-1 500 cents and order A-2 125 cents.' }),
  }).then(async response => response.ok ? await response.json() as { stopReason: string, turns: number, text: string } : Promise.reject(new Error(await response.text())))

  const stats = await invoke()
  console.log(`run: ${stats.stopReason} in ${stats.turns} turns: ${stats.text}`)
  const again = await invoke()
  console.log(`the same invocation again: ${again.stopReason}, answered from Restate (same text: ${again.text === stats.text})`)
  console.log(`ledger (each charge once):\n${readFileSync(ledger, 'utf8')}`)
  if (model && model.requests.length !== 2)
    throw new Error(`the model was asked ${model.requests.length} times, expected 2`)
}
finally {
  worker.close()
  await model?.close()
  server.kill('SIGTERM')
  await new Promise(resolve => server.once('exit', resolve))
  rmSync(work, { recursive: true, force: true })
}
