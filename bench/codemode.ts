/**
 * Codemode against direct tool calling, on the same fake model server (the
 * real Anthropic client over HTTP) and the same tools. The fake model reports
 * as input tokens an estimate of what it was sent (characters of system,
 * messages and tools, over 4), the same estimate for both arms, so the
 * ratios compare what each way puts in front of the model.
 *
 * 1. Twenty lookups, summed: direct calling one lookup per turn (as a model
 *    that calls tools one at a time does), direct calling five per turn, and
 *    one codemode script. Every arm must reach the same total.
 * 2. A catalog of 100 and 500 MCP-style tools, one of them needed: every
 *    schema on the wire (direct) against codemode `'only'`.
 * 3. The sandbox's cold start: a fresh VM per script, in a warm worker.
 */

import type { AgentBehavior, ToolDef, ToolMap } from '../src'
import type { FakeModelRequest, FakeModelStep } from '../src/testing'
import { fileURLToPath } from 'node:url'
import { createAgent } from '../src'
import { anthropic } from '../src/providers/anthropic'
import { startFakeModelServer } from '../src/testing'
import { runScript } from '../src/tools/codemode'
import { median, printTable, quantile } from './measure'

const MODEL = 'claude-bench'
const LOOKUPS = 20

/** The fake model's token estimate, the same for every arm. */
function tokensOf(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? '').length / 4)
}

function inputTokens(request: FakeModelRequest): number {
  const { system, messages, tools } = request.body
  return tokensOf(system) + tokensOf(messages) + tokensOf(tools)
}

/** An order record as a shop's API returns it: the price the task needs, and the detail it does not. */
function order(id: number) {
  return {
    id,
    status: id % 3 === 0 ? 'shipped' : 'processing',
    customer: { name: `Customer ${id}`, email: `customer${id}@example.com`, tier: id % 2 === 0 ? 'gold' : 'standard' },
    items: Array.from({ length: 3 }, (_, index) => ({ sku: `SKU-${id}-${index}`, title: `Item ${index} of order ${id}, a product with a long descriptive title`, quantity: index + 1 })),
    shipping: { method: 'ground', address: `${id} Long Street, Springfield, 12345`, notes: 'Leave at the front desk if nobody answers.' },
    total: 100 + id * 7,
  }
}

const orderTool: ToolDef = {
  spec: {
    name: 'get_order',
    description: 'Fetch one order by id: status, customer, items, shipping and the total in dollars.',
    inputSchema: { type: 'object', properties: { id: { type: 'integer', description: 'Order id' } }, required: ['id'], additionalProperties: false },
  },
  isConcurrencySafe: true,
  execute: (input: { id: number }) => JSON.stringify(order(input.id)),
}

export const EXPECTED_TOTAL = Array.from({ length: LOOKUPS }, (_, index) => order(index + 1).total).reduce((sum, total) => sum + total, 0)

const TOTAL_FIELD = /\\?"total\\?":(\d+)/g
const RETURNED_NUMBER = /Returned: (\d+)/

/** Sum of the `total` fields found in the request's tool results (what the model has read). */
function totalsRead(request: FakeModelRequest): number {
  const messages = request.body.messages as { content: unknown }[]
  let sum = 0
  for (const message of messages) {
    for (const block of Array.isArray(message.content) ? message.content as { type: string, content?: unknown }[] : []) {
      if (block.type !== 'tool_result')
        continue
      const text = typeof block.content === 'string' ? block.content : JSON.stringify(block.content)
      for (const match of text.matchAll(TOTAL_FIELD))
        sum += Number(match[1])
      const returned = RETURNED_NUMBER.exec(text)
      if (returned)
        sum += Number(returned[1])
    }
  }
  return sum
}

const answer = (request: FakeModelRequest) => ({ text: `The total is ${totalsRead(request)} dollars.`, usage: { inputTokens: inputTokens(request) } })
const call = (name: string, input: Record<string, unknown>) => (request: FakeModelRequest) => ({ toolCalls: [{ name, input }], usage: { inputTokens: inputTokens(request) } })
const calls = (list: { name: string, input: Record<string, unknown> }[]) => (request: FakeModelRequest) => ({ toolCalls: list, usage: { inputTokens: inputTokens(request) } })

export interface ArmResult {
  name: string
  inputTokens: number
  toolTokens: number
  turns: number
  wallMs: number
  answer: string
}

async function runArm(name: string, script: FakeModelStep[], tools: ToolMap, behavior: AgentBehavior): Promise<ArmResult> {
  const server = await startFakeModelServer({ script })
  try {
    const agent = createAgent({ provider: anthropic({ apiKey: 'bench', baseURL: server.url, defaultModel: MODEL }), tools, behavior: { persistTurns: false, ...behavior } })
    const started = performance.now()
    const stats = await agent.run({ prompt: 'Sum the totals of orders 1 to 20.' })
    const wallMs = performance.now() - started
    await agent.destroy()
    return {
      name,
      inputTokens: server.requests.reduce((sum, request) => sum + inputTokens(request), 0),
      toolTokens: tokensOf(server.requests[0].body.tools),
      turns: stats.turns,
      wallMs,
      answer: stats.text,
    }
  }
  finally {
    await server.close()
  }
}

/** The 20-lookup task in each arm: direct one call per turn, direct five per turn, codemode. */
export async function lookups(): Promise<ArmResult[]> {
  const ids = Array.from({ length: LOOKUPS }, (_, index) => index + 1)
  const sequential = [...ids.map(id => call('get_order', { id })), answer]
  const batched = [...Array.from({ length: LOOKUPS / 5 }, (_, batch) => calls(ids.slice(batch * 5, batch * 5 + 5).map(id => ({ name: 'get_order', input: { id } })))), answer]
  const script = 'let total = 0\nfor (let id = 1; id <= 20; id++) total += (await tools.get_order({ id })).total\nreturn total'
  const codemode = [call('codemode', { code: script }), answer]
  const tools = { get_order: orderTool }
  return [
    await runArm('direct, 1 call per turn', sequential, tools, {}),
    await runArm('direct, 5 calls per turn', batched, tools, {}),
    await runArm('codemode', codemode, tools, { codemode: true }),
  ]
}

/** `count` tools shaped like an MCP server's, across 5 servers; `crm_lookup_contact` is the one the task needs. */
function catalog(count: number): ToolMap {
  const tools: ToolMap = {}
  for (let index = 0; index < count; index++) {
    const server = `srv${index % 5}`
    const tool = index === 0 ? 'crm_lookup_contact' : `action_${index}`
    const name = `mcp_${server}_${tool}`
    tools[name] = {
      spec: {
        name,
        description: `${index === 0 ? 'Look up a CRM contact by email and return their account.' : `Perform operation number ${index} on the ${server} service.`} Use it when the user asks for this operation; it returns JSON with the result and any warnings.`,
        inputSchema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'What to act on: an id, an email or a search phrase.' },
            limit: { type: 'integer', description: 'Most results to return (default 10).' },
            include_archived: { type: 'boolean', description: 'Also return archived records.' },
          },
          required: ['query'],
        },
      },
      mcp: { server, tool },
      execute: (input: { query: string }) => JSON.stringify({ contact: input.query, account: 'ACME-42', warnings: [] }),
    }
  }
  return tools
}

/** The catalog task at each size: every schema on the wire, against codemode 'only'. */
export async function catalogs(sizes: readonly number[] = [100, 500]): Promise<[number, ArmResult[]][]> {
  const out: [number, ArmResult[]][] = []
  for (const count of sizes) {
    const tools = catalog(count)
    const direct = [call('mcp_srv0_crm_lookup_contact', { query: 'ada@example.com' }), answer]
    const script = 'const [tool] = await searchTools("crm contact", 1)\nreturn (await tools[tool.name]({ query: "ada@example.com" })).account'
    const only = [call('codemode', { code: script }), answer]
    out.push([count, [
      await runArm(`direct, ${count} tools`, direct, tools, {}),
      await runArm(`codemode 'only', ${count} tools`, only, tools, { codemode: 'only' }),
    ]])
  }
  return out
}

async function coldStart(samples: number): Promise<{ first: number, wall: number[], vm: number[] }> {
  const request = { names: [], timeoutMs: 5000, memoryLimitBytes: 64 * 1024 * 1024, signal: new AbortController().signal, onCall: async () => ({ ok: true as const, value: 'null' }) }
  let started = performance.now()
  await runScript({ ...request, code: 'return 1' })
  const first = performance.now() - started
  const wall: number[] = []
  const vm: number[] = []
  for (let index = 0; index < samples; index++) {
    started = performance.now()
    const outcome = await runScript({ ...request, code: 'return 1' })
    wall.push(performance.now() - started)
    vm.push(outcome.startMs)
  }
  return { first, wall, vm }
}

const ms = (value: number) => `${value.toFixed(1)} ms`
const pct = (ours: number, theirs: number) => `${((1 - ours / theirs) * 100).toFixed(0)}% fewer`

export async function codemodeBenchmark(options: { coldStartSamples?: number } = {}): Promise<void> {
  console.log('codemode: one script against direct tool calls (fake Anthropic server, estimated tokens = characters / 4)\n')
  // First, while no worker is running yet: the first script of the process starts one.
  const cold = await coldStart(options.coldStartSamples ?? 40)
  // One unmeasured pass, so no arm pays for loading the provider's client and warming the code.
  await lookups()
  const arms = await lookups()
  printTable(['20 lookups, summed', 'input tokens', 'tool-definition tokens', 'turns', 'wall', 'answer'], arms.map(arm => [arm.name, String(arm.inputTokens), String(arm.toolTokens), String(arm.turns), ms(arm.wallMs), arm.answer]))
  const [sequential, batched, script] = arms
  const same = arms.every(arm => arm.answer === `The total is ${EXPECTED_TOTAL} dollars.`)
  console.log(`codemode input tokens: ${pct(script.inputTokens, sequential.inputTokens)} than 1 call per turn (target ≥ 37%), ${pct(script.inputTokens, batched.inputTokens)} than 5 per turn; same answer in every arm: ${same}\n`)

  for (const [count, [direct, only]] of await catalogs()) {
    printTable([`catalog of ${count} tools`, 'input tokens', 'tool-definition tokens', 'turns', 'wall'], [direct, only].map(arm => [arm.name, String(arm.inputTokens), String(arm.toolTokens), String(arm.turns), ms(arm.wallMs)]))
    console.log(`'only' tool-definition tokens: ${pct(only.toolTokens, direct.toolTokens)} (target at 500 tools: ≥ 85%); input tokens: ${pct(only.inputTokens, direct.inputTokens)}\n`)
  }

  printTable(['sandbox cold start', 'p50', 'p95'], [
    ['script round trip, fresh VM, warm worker', ms(median(cold.wall)), ms(quantile(cold.wall, 0.95))],
    ['of which the VM was ready after', ms(median(cold.vm)), ms(quantile(cold.vm, 0.95))],
  ])
  console.log(`first script of the process (starts the worker, compiles the engine): ${ms(cold.first)}; targets: p50 ≤ 20 ms, p95 ≤ 50 ms`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await codemodeBenchmark()
  process.exit(0)
}
