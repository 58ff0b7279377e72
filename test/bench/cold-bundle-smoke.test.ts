import type { FakeAnthropic } from '../support/fake-anthropic'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleEntry } from '../../bench/bundle'
import { startFakeAnthropic } from '../support/fake-anthropic'

// The bundle benchmark's claims, once each, without timing anything: both
// programs bundle, the MCP SDK is not in zidane's initial code (only in a
// lazy chunk), and the bundled program runs, lazy chunks and all, against a
// fake Anthropic API.

const MCP_SDK = /node_modules\/@modelcontextprotocol\/sdk\//
const dir = mkdtempSync(join(tmpdir(), 'zidane-bundle-smoke-'))
let server: FakeAnthropic

beforeAll(async () => {
  server = await startFakeAnthropic({ fallback: () => ({ type: 'turn', turn: { text: 'Hello.' } }) })
})

afterAll(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Write a bundle's files under `out` and run its entry against the fake server; its stdout. */
async function runBundle(out: string, outputs: readonly { path: string, contents: Uint8Array }[]): Promise<string> {
  for (const file of outputs) {
    const target = join(out, file.path.slice(file.path.lastIndexOf('/') + 1))
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, file.contents)
  }
  const { stdout } = await promisify(execFile)(process.execPath, [join(out, 'entry.js')], {
    env: { ...process.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, NODE_OPTIONS: '' },
    timeout: 30_000,
  })
  return stdout.trim()
}

describe('bundle benchmark (smoke)', () => {
  it('with splitting: the MCP SDK is only in lazy chunks, and the program runs', async () => {
    const out = join(dir, 'split')
    const result = await bundleEntry('zidane', true, { outdir: out })
    expect(result.initialBytes).toBeGreaterThan(0)
    expect(result.initialInputs.some(input => input.endsWith('src/agent/create-agent.ts'))).toBe(true)
    expect(result.initialInputs.filter(input => MCP_SDK.test(input))).toEqual([])
    expect(result.initialMcpBytes).toBe(0)
    // The MCP runtime is still shipped, behind its lazy import().
    expect(result.lazyBytes).toBeGreaterThan(result.runBytes - result.initialBytes)
    expect(result.runBytes).toBeGreaterThan(result.initialBytes)
    expect(JSON.parse(await runBundle(out, result.outputs))).toEqual({ turns: 1 })
    expect(server.requests.at(-1)?.body).toMatchObject({ messages: [{ role: 'user' }] })
  }, 60_000)

  it('without splitting: one file that inlines the lazy parts, and runs', async () => {
    const out = join(dir, 'single')
    const result = await bundleEntry('zidane', false, { outdir: out })
    expect(result.outputs).toHaveLength(1)
    expect(result.lazyBytes).toBe(0)
    expect(result.initialMcpBytes).toBeGreaterThan(0)
    expect(JSON.parse(await runBundle(out, result.outputs))).toEqual({ turns: 1 })
  }, 60_000)

  it('the AI SDK program bundles too', async () => {
    const result = await bundleEntry('AI SDK', true, { outdir: join(dir, 'ai') })
    expect(result.initialByPackage.map(([name]) => name)).toContain('ai')
  }, 60_000)
})
