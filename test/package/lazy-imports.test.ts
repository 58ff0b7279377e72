import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

/**
 * What a fresh process loads for a given script, on the sources (through
 * tsx, so no build is needed). A module a test here says is not loaded is
 * one the process never read: these are load-order facts, not timings.
 */

const root = fileURLToPath(new URL('../..', import.meta.url))
const recorder = fileURLToPath(new URL('./fixtures/record-loads.mjs', import.meta.url))
const counterServer = fileURLToPath(new URL('../mcp/fixtures/counter-server.mjs', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'zidane-loads-'))
let runs = 0

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Run `script` (an ES module body, with `src` as the sources' URL) in a fresh node; the modules it loaded, by URL. */
async function loadsOf(script: string): Promise<string[]> {
  const file = join(dir, `loads-${++runs}.txt`)
  const src = new URL('src/', `file://${root}/`).href
  await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', recorder, '--input-type=module', '-e', `const src = ${JSON.stringify(src)};\n${script}`], {
    cwd: root,
    env: { ...process.env, LOADS_FILE: file, NODE_OPTIONS: '' },
    timeout: 60_000,
  })
  return readFileSync(file, 'utf8').split('\n').filter(Boolean)
}

/** The heavy parts that only some runs need. */
const HEAVY = {
  'the MCP SDK': /\/node_modules\/@modelcontextprotocol\/sdk\//,
  'ajv': /\/node_modules\/ajv(-formats)?\//,
  'zod-to-json-schema': /\/node_modules\/zod-to-json-schema\//,
  'the openai SDK': /\/node_modules\/openai\//,
  'the model catalog data': /\/src\/providers\/catalog\/models\.generated\.ts$/,
  'zidane\'s MCP runtime': /\/src\/mcp\/(connect|elicitation|transports|pool)\.ts$|\/src\/mcp\/oauth\//,
  'zod': /\/node_modules\/zod\//,
  // An ES import of it would show here; `text/re2.ts` requires it (CommonJS) on the first pattern that needs it.
  're2js': /\/node_modules\/re2js\//,
  'the Anthropic SDK client': /\/node_modules\/@anthropic-ai\/sdk\/(index|client)\.mjs$/,
}

function loadedHeavy(loads: readonly string[], names: readonly (keyof typeof HEAVY)[]): string[] {
  return names.filter(name => loads.some(url => HEAVY[name].test(url)))
}

const ALL = Object.keys(HEAVY) as (keyof typeof HEAVY)[]

describe('importing zidane loads only what every run needs', () => {
  it('the root and the anthropic entry load no heavy part', async () => {
    const loads = await loadsOf(`
      await import(new URL('index.ts', src).href)
      await import(new URL('providers/anthropic/index.ts', src).href)
    `)
    // The recorder works: the entries themselves are in the list.
    expect(loads.some(url => url.endsWith('/src/index.ts'))).toBe(true)
    expect(loads.some(url => url.endsWith('/src/providers/anthropic/index.ts'))).toBe(true)
    expect(loadedHeavy(loads, ALL)).toEqual([])
  }, 60_000)

  it('an agent that never runs loads no provider SDK: the process ends without waiting for it', async () => {
    // \`createAgent\` loads the SDK in the background only while the process is busy anyway
    // (test/providers/anthropic-first-request.test.ts shows a busy host getting it).
    const loads = await loadsOf(`
      const { createAgent } = await import(new URL('index.ts', src).href)
      const { anthropic } = await import(new URL('providers/anthropic/index.ts', src).href)
      createAgent({ provider: anthropic({ apiKey: 'test-key', baseURL: 'http://127.0.0.1:9' }) })
    `)
    expect(loads.some(url => url.endsWith('/src/agent/create-agent.ts'))).toBe(true)
    expect(loadedHeavy(loads, ALL)).toEqual(['the model catalog data'])
  }, 60_000)

  it('a run without MCP servers loads no MCP code, and the catalog data only once an agent exists', async () => {
    const loads = await loadsOf(`
      const { createAgent } = await import(new URL('index.ts', src).href)
      const { scriptedProvider } = await import(new URL('testing/index.ts', src).href)
      const agent = createAgent({ provider: scriptedProvider([{ text: 'done' }]) })
      const stats = await agent.run({ prompt: 'hi' })
      if (stats.turns !== 1) throw new Error('the run did not finish: ' + JSON.stringify(stats))
      await agent.destroy()
    `)
    expect(loadedHeavy(loads, ALL)).toEqual(['the model catalog data'])
  }, 60_000)

  it('an agent with an MCP server loads the MCP runtime at connect, and its tools work', async () => {
    const loads = await loadsOf(`
      const { createAgent } = await import(new URL('index.ts', src).href)
      const { scriptedProvider } = await import(new URL('testing/index.ts', src).href)
      const provider = scriptedProvider([{ toolCalls: [{ name: 'mcp_counter_count', input: {} }] }, { text: 'done' }])
      const agent = createAgent({ provider, mcpServers: [{ name: 'counter', transport: 'stdio', command: process.execPath, args: [${JSON.stringify(counterServer)}] }] })
      await agent.run({ prompt: 'count' })
      const result = provider.requests[1].messages.at(-1).content[0]
      await agent.destroy()
      if (result.isError || JSON.parse(result.output).count !== 1) throw new Error('the MCP tool did not answer: ' + JSON.stringify(result))
    `)
    expect(loadedHeavy(loads, ['the MCP SDK', 'zidane\'s MCP runtime'])).toEqual(['the MCP SDK', 'zidane\'s MCP runtime'])
  }, 60_000)
})
