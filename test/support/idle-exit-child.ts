/**
 * Child process for the idle-exit tests: a program that creates an agent on
 * two stdio MCP servers (server-everything from npm, and the counter fixture,
 * which tells its pid), runs one prompt that calls a tool of each, prints
 * what it saw, and then just ends: it never calls `destroy()` unless the
 * mode says so. The test asserts that the process exits by itself.
 *
 * Arguments: <mode>, one of
 *   plain        - two runs, then the agent is left as it is
 *   pooled       - the servers go through an MCP server pool
 *   await-using  - `await using agent = createAgent(...)`: destroyed when the block ends, and
 *                  the report (printed after the block) lists the servers it closed
 *   http <url>   - two runs on one streamable-HTTP server (its `add` tool), then left as it is
 */
import type { McpServerConfig } from '../../src/mcp'
import type { ScriptedTurn } from '../../src/testing'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { createAgent } from '../../src'
import { createMcpServerPool } from '../../src/mcp'
import { scriptedProvider } from '../../src/testing'

const require = createRequire(import.meta.url)
const mode = process.argv[2]

const mcpServers: McpServerConfig[] = [
  {
    name: 'everything',
    transport: 'stdio',
    command: process.execPath,
    args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
    enabledTools: ['echo'],
  },
  {
    name: 'counter',
    transport: 'stdio',
    command: process.execPath,
    args: [fileURLToPath(new URL('../mcp/fixtures/counter-server.mjs', import.meta.url))],
  },
]

/** One run: a call to each server, then an answer. */
const ONE_RUN: ScriptedTurn[] = [
  { toolCalls: [{ name: 'mcp_everything_echo', input: { message: 'hello' } }, { name: 'mcp_counter_count', input: {} }] },
  { text: 'done' },
]

function script(runs: number) {
  const turns: ScriptedTurn[] = []
  for (let run = 0; run < runs; run++)
    turns.push(...ONE_RUN)
  return scriptedProvider(turns)
}

/** Tool results as text, in the order they came back. */
const results: string[] = []

function report(stopReason: string) {
  process.stdout.write(`${JSON.stringify({ stopReason, results })}\n`)
}

if (mode === 'await-using') {
  let stopReason = ''
  {
    await using agent = createAgent({ provider: script(1), mcpServers })
    agent.hooks.hook('tool:after', (ctx) => {
      results.push(String(ctx.result))
    })
    // Fires only when the agent closes its servers: here, when the block ends.
    agent.hooks.hook('mcp:close', (ctx) => {
      results.push(`closed ${ctx.server}`)
    })
    stopReason = (await agent.run({ prompt: 'echo and count' })).stopReason
  }
  report(stopReason)
}
else if (mode === 'plain' || mode === 'pooled') {
  const runs = mode === 'plain' ? 2 : 1
  const agent = createAgent({
    provider: script(runs),
    mcpServers,
    ...(mode === 'pooled' ? { mcpPool: createMcpServerPool() } : {}),
  })
  agent.hooks.hook('tool:after', (ctx) => {
    results.push(String(ctx.result))
  })
  let stopReason = ''
  for (let run = 0; run < runs; run++)
    stopReason = (await agent.run({ prompt: 'echo and count' })).stopReason
  report(stopReason)
}
else if (mode === 'http') {
  const agent = createAgent({
    provider: scriptedProvider([
      { toolCalls: [{ name: 'mcp_remote_add', input: { a: 1, b: 2 } }] },
      { text: 'first' },
      { toolCalls: [{ name: 'mcp_remote_add', input: { a: 3, b: 4 } }] },
      { text: 'second' },
    ]),
    mcpServers: [{ name: 'remote', transport: 'streamable-http', url: process.argv[3] }],
  })
  agent.hooks.hook('tool:after', (ctx) => {
    results.push(String(ctx.result))
  })
  let stopReason = ''
  for (let run = 0; run < 2; run++)
    stopReason = (await agent.run({ prompt: 'add' })).stopReason
  report(stopReason)
}
else {
  throw new Error(`unknown mode ${mode}`)
}
