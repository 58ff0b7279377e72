import type { RunState } from '../../src/session'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { RunStateError } from '../../src/errors'
import { createSession, parseRunState, RUN_STATE_VERSION, serializeRunState } from '../../src/session'
import { scriptedProvider } from '../../src/testing'

// Every version of the run state this build has written must stay readable, and every broken record must be
// refused with a RunStateError naming its field. A new version adds a folder next to v1/ and keeps the old ones.

const fixtures = fileURLToPath(new URL('../fixtures/run-state', import.meta.url))

function read(folder: string, name: string): string {
  return readFileSync(join(fixtures, folder, name), 'utf8')
}

/** Each broken fixture, the field its error names, and a word of what the problem says. */
const BROKEN: Record<string, { path: string, says: RegExp }> = {
  'not-json.json': { path: '(record)', says: /not valid JSON/ },
  'not-an-object.json': { path: '(record)', says: /an array, not an object/ },
  'no-version.json': { path: 'version', says: /missing/ },
  'newer-version.json': { path: 'version', says: /version 99; this build reads up to 2/ },
  'negative-turn-count.json': { path: 'turnCount', says: /not a count/ },
  'target-without-model.json': { path: 'target.model', says: /undefined, not a string/ },
  'pending-content-not-blocks.json': { path: 'pending[0].content[0]', says: /not a content block/ },
  'usage-input-string.json': { path: 'usage[1].input', says: /a string, not a number/ },
  'side-call-without-purpose.json': { path: 'sideCalls[0].purpose', says: /not a string/ },
  'child-without-stats.json': { path: 'children[0].stats', says: /not an object/ },
  'read-entry-unknown-source.json': { path: 'read.entries[0].source', says: /not one of read_file/ },
  'policies-array.json': { path: 'policies', says: /an array, not an object/ },
  'approvals-not-array.json': { path: 'approvals', says: /not an array/ },
  'approval-input-not-object.json': { path: 'approvals[0].input', says: /a string, not an object/ },
  'approval-decision-not-boolean.json': { path: 'approvals[0].decision.approved', says: /a string, not a boolean/ },
}

describe('run state fixtures', () => {
  it('the current version is 2, and there is a fixture folder for every version up to it', () => {
    expect(RUN_STATE_VERSION).toBe(2)
    for (let version = 1; version <= RUN_STATE_VERSION; version++)
      expect(readdirSync(join(fixtures, `v${version}`)).length).toBeGreaterThan(0)
  })

  const valid = ['v1', 'v2'].flatMap(folder => readdirSync(join(fixtures, folder)).map(name => `${folder}/${name}`))
  it.each(valid)('%s parses and round-trips', (file) => {
    const text = readFileSync(join(fixtures, file), 'utf8')
    const state: RunState = parseRunState(text)
    expect(state).toEqual(JSON.parse(text))
    expect(parseRunState(serializeRunState(state))).toEqual(state)
  })

  it('lists every broken fixture', () => {
    expect(readdirSync(join(fixtures, 'broken')).sort()).toEqual(Object.keys(BROKEN).sort())
  })

  it.each(Object.entries(BROKEN))('broken/%s is refused at its field', (name, expected) => {
    const error = (() => {
      try {
        parseRunState(read('broken', name))
      }
      catch (failure) {
        return failure
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(RunStateError)
    expect((error as RunStateError).path).toBe(expected.path)
    expect((error as RunStateError).problem).toMatch(expected.says)
    // The message says where and how to recover.
    expect((error as Error).message).toContain(`${expected.path} `)
    expect((error as Error).message).toMatch(/save the run record again without its state/)
  })

  it('a broken state stored with a paused run stops the continuation with the same error, naming the run and session', async () => {
    const session = await createSession()
    const state = JSON.parse(read('broken', 'usage-input-string.json')) as RunState
    await session.saveRun({ id: 'run-paused', status: 'completed', stopReason: 'paused', startedAt: 1, state })
    await session.appendTurns([{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'go' }], createdAt: 1, runId: 'run-paused' }])
    const error = await createAgent({ provider: scriptedProvider([{ text: 'never' }]), session }).run().catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(RunStateError)
    expect(error).toMatchObject({ path: 'usage[1].input', runId: 'run-paused', sessionId: session.id })
  })

  it('a v2 record suspended with an approved call is continued: the call runs and the model reads its result', async () => {
    const session = await createSession()
    const state = JSON.parse(read('v2', 'approved.json')) as RunState
    await session.appendTurns([
      { id: 'u1', role: 'user', content: [{ type: 'text', text: 'release it' }], createdAt: 1, runId: 'run-s' },
      { id: 'a1', role: 'assistant', content: [{ type: 'tool_call', id: 'call_9', name: 'mcp__deploy__release', input: { tag: 'v2.1.0' } }], createdAt: 2, runId: 'run-s', usage: { input: 10, output: 5 } },
      { id: 'u2', role: 'user', content: [{ type: 'tool_result', callId: 'call_9', output: 'Not run yet', isError: true, metadata: { approval: 'pending' } }], createdAt: 3, runId: 'run-s' },
    ])
    await session.saveRun({ id: 'run-s', status: 'completed', stopReason: 'suspended', startedAt: 1, state })
    const released: string[] = []
    const release = { spec: { name: 'mcp__deploy__release', description: 'release', inputSchema: { type: 'object' } }, execute: (input: { tag: string }) => {
      released.push(input.tag)
      return `released ${input.tag}`
    } }
    const provider = scriptedProvider([{ text: 'released' }])
    const stats = await createAgent({ provider, tools: { release }, session }).run()
    expect(stats.stopReason).toBe('completed')
    expect(released).toEqual(['v2.1.0'])
    expect(provider.requests[0].messages.at(-1)!.content).toMatchObject([{ type: 'tool_result', callId: 'call_9', output: 'released v2.1.0' }])
  })
})
