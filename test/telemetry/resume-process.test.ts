import type { FakeAnthropic } from '../support/fake-anthropic'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { anthropic } from '../../src/providers/anthropic'
import { createSession, loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { bundleChildScript } from '../support/child-bundle'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { otelHarness, parentOf, spansNamed } from './otel-harness'

let workDir: string
let childScript: string
let fake: FakeAnthropic
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'zidane-otel-crash-'))
  childScript = await bundleChildScript('telemetry-crash-child', workDir)
  fake = await startFakeAnthropic()
})
afterAll(async () => {
  await fake.close()
  await rm(workDir, { recursive: true, force: true })
})

/** Run the child until its tool hangs, then kill it; the traceparent it saw on its run record. */
function runUntilHanging(dir: string, sessionId: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, dir, sessionId], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    let seen: string | undefined
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()))
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /hanging (\S+)\n/.exec(out)
      if (match && seen === undefined) {
        seen = match[1]
        child.kill('SIGKILL')
      }
    })
    // Resolved once the process is gone, so its session lease is a dead holder's.
    child.on('exit', () => seen === undefined ? reject(new Error(`the child ended before its tool ran: ${err}`)) : resolve(seen))
  })
}

describe('a run resumed in another process', () => {
  it('joins the trace of the run a killed process left unfinished, and links to its span', async () => {
    const dir = join(workDir, 'store')
    const store = createFileStore({ dir })
    const session = await createSession({ id: 'crashed-run', store })
    const traceparent = await runUntilHanging(dir, session.id)
    const [, traceId, spanId] = traceparent.split('-')
    expect(traceId).toMatch(/^[0-9a-f]{32}$/)

    const reloaded = await loadSession(session.id, { store })
    expect(reloaded.runs[0]).toMatchObject({ status: 'running', traceContext: { traceparent } })
    const otel = otelHarness()
    fake.enqueue({ type: 'turn', turn: { text: 'picked it up' } })
    const agent = createAgent({ provider: anthropic({ apiKey: 'k', baseURL: fake.url, defaultModel: 'claude-test' }), session: reloaded, telemetry: { tracer: otel.tracer } })
    const stats = await agent.run()
    expect(stats.text).toBe('picked it up')

    const [resumed] = spansNamed(otel.spans(), 'invoke_agent')
    expect(resumed.spanContext().traceId).toBe(traceId)
    expect(parentOf(resumed)).toBe(spanId)
    expect(resumed.links.map(link => link.context.spanId)).toEqual([spanId])
    // The continuing run records its own span, in the same trace.
    const record = (await loadSession(session.id, { store })).runs.at(-1)!
    expect(record.traceContext?.traceparent).toBe(`00-${traceId}-${resumed.spanContext().spanId}-01`)
  }, 60_000)
})
