import type { FakeAnthropic } from '../support/fake-anthropic'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleEntry } from '../../bench/bundle'
import { startFakeAnthropic } from '../support/fake-anthropic'

// The bundle benchmark's claims, once each, without timing anything: the
// programs bundle and run against a fake Anthropic API; the plain zidane
// program holds no MCP code, as one file or split; one that passes
// `mcpConnector` bundles the MCP client and its tools work; and one that
// configures `mcpServers` without it fails with the typed error that names
// the fix.

const MCP_SDK = /node_modules\/@modelcontextprotocol\/sdk\//
const ZIDANE_MCP_RUNTIME = /^src\/mcp\/(?:connect|elicitation|pool|transports)\.ts$/
const counterServer = fileURLToPath(new URL('../mcp/fixtures/counter-server.mjs', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'zidane-bundle-smoke-'))
let server: FakeAnthropic

beforeAll(async () => {
  server = await startFakeAnthropic({ fallback: () => ({ type: 'turn', turn: { text: 'Hello.' } }) })
})

afterAll(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Write a bundle's files under `out` and run its entry against the fake server; its stdout and stderr. */
async function runBundle(out: string, outputs: readonly { path: string, contents: Uint8Array }[], env: Record<string, string> = {}): Promise<{ stdout: string, stderr: string }> {
  for (const file of outputs) {
    const target = join(out, file.path.slice(file.path.lastIndexOf('/') + 1))
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, file.contents)
  }
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(out, 'entry.js')], {
    env: { ...process.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, NODE_OPTIONS: '', ...env },
    timeout: 30_000,
  })
  return { stdout: stdout.trim(), stderr }
}

describe('bundle benchmark (smoke)', () => {
  it('one file: the plain program holds no MCP code, and runs', async () => {
    const out = join(dir, 'single')
    const result = await bundleEntry('zidane', false, { outdir: out })
    expect(result.outputs).toHaveLength(1)
    expect(result.initialBytes).toBe(result.loadableBytes)
    expect(result.inputs.some(input => input.endsWith('src/agent/create-agent.ts'))).toBe(true)
    expect(result.inputs.filter(input => MCP_SDK.test(input) || ZIDANE_MCP_RUNTIME.test(input))).toEqual([])
    expect(result.mcpBytes).toBe(0)
    expect(JSON.parse((await runBundle(out, result.outputs)).stdout)).toEqual({ turns: 1 })
    expect(server.requests.at(-1)?.body).toMatchObject({ messages: [{ role: 'user' }] })
  }, 60_000)

  it('with splitting: no MCP code in any chunk, and the program runs, lazy chunks and all', async () => {
    const out = join(dir, 'split')
    const result = await bundleEntry('zidane', true, { outdir: out })
    expect(result.outputs.length).toBeGreaterThan(1)
    expect(result.loadableBytes).toBeGreaterThan(result.initialBytes)
    expect(result.mcpBytes).toBe(0)
    expect(JSON.parse((await runBundle(out, result.outputs)).stdout)).toEqual({ turns: 1 })
  }, 60_000)

  it('with mcpConnector, the MCP client is in the one file and the server\'s tool answers', async () => {
    const out = join(dir, 'mcp')
    const result = await bundleEntry('zidane + MCP', false, { outdir: out })
    expect(result.outputs).toHaveLength(1)
    expect(result.mcpBytes).toBeGreaterThan(0)
    server.enqueue(
      { type: 'turn', turn: { toolCalls: [{ name: 'mcp_counter_count', input: {} }] } },
      { type: 'turn', turn: { text: 'Counted.' } },
    )
    const { stdout } = await runBundle(out, result.outputs, { MCP_SERVER_SCRIPT: counterServer })
    expect(JSON.parse(stdout)).toEqual({ turns: 2, text: 'Counted.' })
    const toolResult = (server.requests.at(-1)?.body as { messages: { content: { type: string, content?: unknown }[] }[] }).messages.at(-1)!.content[0]
    expect(toolResult.type).toBe('tool_result')
    expect(JSON.stringify(toolResult.content)).toContain('\\"count\\":1')
  }, 60_000)

  it('mcpServers without mcpConnector, bundled: the run fails with McpConnectorUnavailableError naming the fix', async () => {
    const out = join(dir, 'mcp-missing')
    // The MCP program without its mcpConnector, printing the run's error.
    const source = [
      `import { createAgent } from 'zidane'`,
      `import { anthropic } from 'zidane/providers/anthropic'`,
      `const mcpServers = [{ name: 'counter', transport: 'stdio', command: process.execPath, args: [process.env.MCP_SERVER_SCRIPT] }]`,
      `const agent = createAgent({ provider: anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL: process.env.ANTHROPIC_BASE_URL }), mcpServers })`,
      `const error = await agent.run({ prompt: 'Count.' }).then(() => undefined, (failure) => failure)`,
      `console.log(JSON.stringify({ name: error?.name, message: error?.message }))`,
      `await agent.destroy()`,
    ].join('\n')
    expect(source).not.toContain('connectMcpServers')
    const result = await bundleEntry('zidane + MCP', false, { outdir: out, source })
    expect(result.mcpBytes).toBe(0)
    const { stdout } = await runBundle(out, result.outputs, { MCP_SERVER_SCRIPT: counterServer })
    const failure = JSON.parse(stdout) as { name: string, message: string }
    expect(failure.name).toBe('McpConnectorUnavailableError')
    expect(failure.message).toContain(`import { connectMcpServers } from 'zidane/mcp' and pass it as mcpConnector`)
  }, 60_000)

  it('the AI SDK program bundles too', async () => {
    const result = await bundleEntry('AI SDK', true, { outdir: join(dir, 'ai') })
    expect(result.byPackage.map(([name]) => name)).toContain('ai')
  }, 60_000)
})
