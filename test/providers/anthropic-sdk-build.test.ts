import type { FakeAnthropic } from '../support/fake-anthropic'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeAnthropic } from '../support/fake-anthropic'

/**
 * Which build of the Anthropic SDK zidane loads (package.json "imports";
 * docs/decisions/2026-12-04-anthropic-sdk-build-by-condition.md): Node gets
 * the CommonJS build, whose 300-odd modules load faster than the ES modules,
 * required by the small files in shims/ so that Node's import never scans the
 * SDK's own large files (docs/decisions/2026-12-04-anthropic-sdk-through-shims.md);
 * a bundler gets the ES modules, which it can tree-shake.
 */
const root = fileURLToPath(new URL('../..', import.meta.url))

let fake: FakeAnthropic

beforeEach(async () => {
  fake = await startFakeAnthropic()
})

afterEach(async () => {
  await fake.close()
})

describe('the Anthropic SDK build zidane loads', () => {
  it('is the CommonJS build under Node, required through the shims, and a run through it answers and classifies failures', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'hi there' } })
    fake.enqueue({ type: 'error', status: 401 })
    const script = `
      import { createRequire } from 'node:module'
      const { createAgent } = await import('./src/index.ts')
      const { anthropic } = await import('./src/providers/anthropic/index.ts')
      const agent = createAgent({ provider: anthropic({ baseURL: process.env.FAKE_URL, apiKey: 'test-key' }), behavior: { retry: { maxAttempts: 1 } } })
      const first = await agent.run({ prompt: 'hello' })
      const second = await agent.run({ prompt: 'again' }).then(() => 'completed', error => error.name + ':' + error.cause?.kind)
      const cache = createRequire(import.meta.url).cache
      const loaded = Object.keys(cache).filter(path => path.includes('@anthropic-ai/sdk/'))
      // Who required each entry module: a module Node's import made itself has no parent.
      const requiredBy = name => cache[loaded.find(path => path.endsWith(name))]?.parent?.filename.split('/').slice(-3).join('/')
      console.log(JSON.stringify({ first: first.text, second, client: requiredBy('/sdk/client.js'), error: requiredBy('/core/error.js') }))
    `
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, FAKE_URL: fake.url, NODE_OPTIONS: '' },
      timeout: 30_000,
    })
    expect(JSON.parse(stdout)).toEqual({
      first: 'hi there',
      second: 'AgentProviderError:auth',
      client: 'shims/anthropic-sdk/client.cjs',
      error: 'shims/anthropic-sdk/error.cjs',
    })
  }, 30_000)

  it('is the ES modules build for a bundler, which leaves out what the client does not use', async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../../src/providers/anthropic/sdk-client.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
    const inputs = Object.keys(result.metafile.inputs).filter(path => path.includes('@anthropic-ai/sdk/'))
    expect(inputs).toContain('node_modules/@anthropic-ai/sdk/client.mjs')
    expect(inputs.filter(path => path.endsWith('.js'))).toEqual([])
  })
})
