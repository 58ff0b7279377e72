import type { FakeAnthropic } from '../support/fake-anthropic'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeAnthropic } from '../support/fake-anthropic'

/**
 * The Anthropic SDK is not loaded at import: `createAgent` starts loading it,
 * and the first request waits for whatever is left of that load. That wait
 * must not count against `providerStreamStartTimeoutMs`: the provider has not
 * been asked anything yet. A fresh process (on the sources, through tsx) with
 * the SDK's client module made slower to load than the start timeout must
 * still get its first answer, with no retry to hide a timeout; and when the
 * host does other work between `createAgent` and its first run, the load
 * happens during that work instead of inside the run.
 */

const root = fileURLToPath(new URL('../..', import.meta.url))
const slowSdk = fileURLToPath(new URL('./fixtures/slow-anthropic-sdk.mjs', import.meta.url))

const START_TIMEOUT_MS = 1_000
const SDK_LOAD_DELAY_MS = 2_500
/** What a host does between creating the agent and running it (reading input, say), in the second test. */
const HOST_WORK_MS = SDK_LOAD_DELAY_MS + 1_500

let fake: FakeAnthropic
beforeEach(async () => {
  fake = await startFakeAnthropic()
})
afterEach(async () => {
  await fake.close()
})

/** Create an agent, wait `hostWorkMs`, then time its first run from start to result. */
async function firstRunInFreshProcess(hostWorkMs = 0): Promise<{ outcome: string, loadedMs: number }> {
  const src = new URL('src/', `file://${root}/`).href
  const script = `
    const { createAgent } = await import(new URL('index.ts', ${JSON.stringify(src)}).href)
    const { anthropic } = await import(new URL('providers/anthropic/index.ts', ${JSON.stringify(src)}).href)
    const agent = createAgent({
      provider: anthropic({ baseURL: process.env.FAKE_URL, apiKey: 'test-key' }),
      behavior: { providerStreamStartTimeoutMs: ${START_TIMEOUT_MS}, retry: { maxAttempts: 1 } },
    })
    await new Promise(resolve => setTimeout(resolve, ${hostWorkMs}))
    const started = Date.now()
    const outcome = await agent.run({ prompt: 'hello' }).then(stats => stats.stopReason + ': ' + stats.text, error => error.name + ': ' + error.message)
    console.log(JSON.stringify({ outcome, loadedMs: Date.now() - started }))
  `
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', slowSdk, '--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, FAKE_URL: fake.url, SLOW_SDK_MS: String(SDK_LOAD_DELAY_MS), NODE_OPTIONS: '' },
    timeout: 60_000,
  })
  return JSON.parse(stdout.trim().split('\n').at(-1)!)
}

describe('the first Anthropic request of a process', () => {
  it('is answered although loading the SDK takes longer than the start timeout', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'hi there' } })
    const { outcome, loadedMs } = await firstRunInFreshProcess()
    expect(outcome).toBe('completed: hi there')
    // The run did wait for the slow load: the start watchdog would have fired long before.
    expect(loadedMs).toBeGreaterThanOrEqual(SDK_LOAD_DELAY_MS)
    expect(fake.requests).toHaveLength(1)
  }, 60_000)

  it('does not wait for the SDK when the host was busy for longer than the load after creating the agent', async () => {
    fake.enqueue({ type: 'turn', turn: { text: 'hi there' } })
    const { outcome, loadedMs } = await firstRunInFreshProcess(HOST_WORK_MS)
    expect(outcome).toBe('completed: hi there')
    // Loaded on the SDK's first request, the run would take the whole delay.
    expect(loadedMs).toBeLessThan(SDK_LOAD_DELAY_MS)
  }, 60_000)
})
