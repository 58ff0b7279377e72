/**
 * `createMutationValidationHooks` end to end: the `basic` preset changes real
 * files in a temp dir, `validate` runs `node --check` on them through the
 * agent's execution context, and a failure reaches the model (through
 * `onFailure` and `agent.steer`) on the next request the fake Anthropic
 * server receives.
 */

import type { MutationValidationBatch, MutationValidationFailure, MutationValidationMutation } from '../../src/index'
import type { FakeAnthropic } from '../support/fake-anthropic'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createProcessContext } from '../../src/contexts/process'
import { createAgent, createMutationValidationHooks, tool } from '../../src/index'
import { basic } from '../../src/presets'
import { anthropic } from '../../src/providers/anthropic'
import { scriptedProvider } from '../../src/testing'
import { startFakeAnthropic } from '../support/fake-anthropic'

const root = mkdtempSync(join(tmpdir(), 'zidane-mutation-validation-'))
let fake: FakeAnthropic | undefined
let dir: string
let execution: ReturnType<typeof createProcessContext>

beforeEach(() => {
  dir = mkdtempSync(join(root, 'case-'))
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src/ok.js'), 'export const answer = 41\n')
  execution = createProcessContext({ cwd: dir })
})

afterEach(async () => {
  await fake?.close()
  fake = undefined
  await execution.destroy()
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Syntax-check every changed file with the real `node --check`, through the agent's execution context. */
async function nodeCheck(batch: MutationValidationBatch) {
  const errors: string[] = []
  for (const mutation of batch.mutations) {
    const path = String(mutation.input.path)
    const run = await execution.exec(`node --check ${JSON.stringify(path)}`)
    if (run.exitCode !== 0)
      errors.push(`${path}: ${run.output.split('\n').find(line => line.startsWith('SyntaxError')) ?? run.output.trim()}`)
  }
  return errors.length > 0 ? { ok: false as const, message: 'node --check failed.', errors } : { ok: true as const }
}

/** Every text the request sent in its user messages, joined. */
function userText(body: any): string {
  return body.messages
    .filter((message: any) => message.role === 'user')
    .flatMap((message: any) => typeof message.content === 'string' ? [message.content] : message.content)
    .map((part: any) => typeof part === 'string' ? part : part.type === 'text' ? part.text : part.type === 'tool_result' ? JSON.stringify(part.content) : '')
    .join('\n')
}

describe('createMutationValidationHooks', () => {
  it('validates the files a round changed and tells the model what broke, on the Anthropic wire', async () => {
    fake = await startFakeAnthropic()
    fake.enqueue(
      { type: 'turn', turn: { toolCalls: [
        { id: 'toolu_w', name: 'write_file', input: { path: 'src/new.js', content: 'const broken = ;\n' } },
        { id: 'toolu_e', name: 'edit', input: { path: 'src/ok.js', old_string: '41', new_string: '42' } },
        { id: 'toolu_r', name: 'read_file', input: { path: 'src/ok.js' } },
      ] } },
      { type: 'turn', turn: { toolCalls: [{ id: 'toolu_fix', name: 'write_file', input: { path: 'src/new.js', content: 'export const fixed = 1\n' } }] } },
      { type: 'turn', turn: { text: 'Both files are valid now.' } },
    )
    const batches: MutationValidationBatch[] = []
    const failures: MutationValidationFailure[] = []
    const agent = createAgent({
      ...basic,
      provider: anthropic({ baseURL: fake.url, apiKey: 'test-key' }),
      execution,
      hooks: createMutationValidationHooks({
        validate: async (batch) => {
          batches.push(batch)
          return nodeCheck(batch)
        },
        onFailure: (failure) => {
          failures.push(failure)
          agent.steer(failure.message)
        },
      }),
    })
    const stats = await agent.run({ prompt: 'Add src/new.js and bump the answer.' })

    expect(stats.stopReason).toBe('completed')
    expect(readFileSync(join(dir, 'src/ok.js'), 'utf8')).toBe('export const answer = 42\n')
    expect(readFileSync(join(dir, 'src/new.js'), 'utf8')).toBe('export const fixed = 1\n')

    // One batch per round that changed something; the read is not a mutation.
    expect(batches).toHaveLength(2)
    const first = batches[0].mutations.map((m: MutationValidationMutation) => [m.tool, m.outcome, m.callId, m.input.path])
    expect(first).toEqual([['write_file', 'created', 'toolu_w', 'src/new.js'], ['edit', 'edited', 'toolu_e', 'src/ok.js']])
    expect(batches[0].mutations.every(m => m.turnId === batches[0].turnId)).toBe(true)
    expect(String(batches[0].mutations[1].result)).toContain('Edited')
    expect(batches[1].mutations.map(m => [m.tool, m.outcome])).toEqual([['write_file', 'updated']])
    expect(batches[1].turnId).not.toBe(batches[0].turnId)

    expect(failures).toHaveLength(1)
    expect(failures[0].failureCount).toBe(1)
    expect(failures[0].result.errors?.[0]).toMatch(/^src\/new\.js: SyntaxError/)
    expect(failures[0].message).toContain('- src/new.js (created by write_file)')
    expect(failures[0].message).toContain('- src/ok.js (edited by edit)')
    expect(failures[0].message).toContain('node --check failed.')

    // The model reads the failure on the request right after the failing round, and only there.
    expect(fake.requests).toHaveLength(3)
    expect(userText(fake.requests[0].body)).not.toContain('Validation failed')
    expect(userText(fake.requests[1].body)).toContain('Validation failed after your last changes.')
    expect(userText(fake.requests[1].body)).toContain('SyntaxError')
    const lastUser = fake.requests[2].body.messages.at(-1)
    expect(JSON.stringify(lastUser)).not.toContain('Validation failed')
  })

  it('reports at most maxFailuresPerRun failures (default 2) and stops validating after that', async () => {
    const broken = (n: number) => ({ toolCalls: [{ name: 'write_file', input: { path: `src/b${n}.js`, content: 'const = ;\n' } }] })
    const provider = scriptedProvider([broken(1), broken(2), broken(3), { text: 'done' }])
    let validated = 0
    const counts: number[] = []
    const agent = createAgent({
      ...basic,
      provider,
      execution,
      hooks: createMutationValidationHooks({
        validate: async (batch) => {
          validated += 1
          return nodeCheck(batch)
        },
        onFailure: ({ failureCount }) => {
          counts.push(failureCount)
        },
      }),
    })
    await agent.run({ prompt: 'go' })
    expect(counts).toEqual([1, 2])
    expect(validated).toBe(2)

    // A new run counts afresh.
    provider.push(broken(4), { text: 'done' })
    await agent.run({ prompt: 'again' })
    expect(counts).toEqual([1, 2, 1])
  })

  it('honours a custom maxFailuresPerRun and buildFailureMessage', async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'write_file', input: { path: 'src/x.js', content: 'const x = ;\n' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'src/y.js', content: 'const y = ;\n' } }] },
      { text: 'done' },
    ])
    const messages: string[] = []
    const seen: unknown[] = []
    const agent = createAgent({
      ...basic,
      provider,
      execution,
      hooks: createMutationValidationHooks({
        maxFailuresPerRun: 1,
        validate: nodeCheck,
        buildFailureMessage: (facts) => {
          seen.push(facts)
          return `custom: ${facts.batch.mutations.map(m => m.input.path).join(',')} #${facts.failureCount}`
        },
        onFailure: ({ message }) => {
          messages.push(message)
          agent.steer(message)
        },
      }),
    })
    await agent.run({ prompt: 'go' })
    expect(messages).toEqual(['custom: src/x.js #1'])
    expect(seen[0]).not.toHaveProperty('message')
    // The custom message is what the model read.
    const second = provider.requests[1].messages.flatMap(m => m.content)
    expect(second.some(block => block.type === 'text' && block.text === 'custom: src/x.js #1')).toBe(true)
  })

  it('leaves out no-ops, failed mutations and read-only tools, and keeps rounds without mutations unvalidated', async () => {
    const provider = scriptedProvider([
      { toolCalls: [
        { name: 'write_file', input: { path: 'src/ok.js', content: 'export const answer = 41\n' } },
        { name: 'edit', input: { path: 'src/ok.js', old_string: 'missing text', new_string: 'x' } },
        { name: 'list_files', input: {} },
      ] },
      { text: 'done' },
    ])
    const outcomes: unknown[] = []
    let validated = 0
    const agent = createAgent({
      ...basic,
      provider,
      execution,
      hooks: createMutationValidationHooks({ validate: () => {
        validated += 1
      } }),
    })
    agent.hooks.hook('tool:after', ({ outcome }) => {
      outcomes.push(outcome)
    })
    await agent.run({ prompt: 'go' })
    expect(outcomes).toEqual(['noop', 'failed', undefined])
    expect(validated).toBe(0)
  })

  it('collects custom tools that report an outcome, and sends a throwing validate to onError only', async () => {
    const store = new Map<string, string>()
    const putRecord = tool({
      name: 'put_record',
      description: 'Store a record.',
      input: z.object({ key: z.string(), value: z.string() }),
      execute: async ({ key, value }, ctx) => {
        ctx.reportOutcome(store.has(key) ? 'updated' : 'created')
        store.set(key, value)
        return `stored ${key}`
      },
    })
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'put_record', input: { key: 'a', value: '1' } }] },
      { toolCalls: [{ name: 'put_record', input: { key: 'a', value: '2' } }] },
      { text: 'done' },
    ])
    const errors: [unknown, MutationValidationBatch][] = []
    const batches: MutationValidationBatch[] = []
    let failed = 0
    const hooks = createMutationValidationHooks({
      validate: (batch) => {
        batches.push(batch)
        if (batches.length === 1)
          throw new Error('checker crashed')
        return { ok: false, message: 'still bad' }
      },
      onError: (error, batch) => {
        errors.push([error, batch])
      },
      onFailure: () => {
        failed += 1
      },
    })
    const agent = createAgent({ provider, tools: { put_record: putRecord } })
    agent.hooks.addHooks(hooks)
    await agent.run({ prompt: 'go' })
    expect(batches.map(b => b.mutations.map(m => [m.tool, m.outcome, m.result]))).toEqual([
      [['put_record', 'created', 'stored a']],
      [['put_record', 'updated', 'stored a']],
    ])
    expect(errors).toHaveLength(1)
    expect((errors[0][0] as Error).message).toBe('checker crashed')
    expect(errors[0][1]).toBe(batches[0])
    expect(failed).toBe(1)
    // The crash never reached the model.
    expect(JSON.stringify(provider.requests.map(r => r.messages))).not.toContain('checker crashed')
  })

  it('refuses options without a validate function or with a bad maxFailuresPerRun', () => {
    expect(() => createMutationValidationHooks({} as never)).toThrow(TypeError)
    expect(() => createMutationValidationHooks({ validate: () => {}, maxFailuresPerRun: -1 })).toThrow(/maxFailuresPerRun/)
  })
})
