import type { ToolDef } from '../../src'
import type { ToolResultBlock } from '../../src/core/content'
import { constants } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { TOOL_OUTPUT_LIMITS } from '../../src/core/tool-io'
import { createFileStore, createSession, loadSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'
import { SANDBOX_LIMITS } from '../../src/tools/codemode'
import { tempDirForFile } from '../session/temp-dir'

// Codemode records each nested call with its arguments on the tool_result of
// the script's call, and a script may pass 4 million characters of them. A
// turn's results are one log line, so a turn of many such scripts made a
// line no store could write (140 scripts of ASCII arguments: 560 million
// characters, more than a JavaScript string holds; 46 scripts of "€", three
// bytes each in UTF-8: more than a log line may hold) and the run failed.
// The arguments now count in the turn's budget, after its results: kept in
// call order while they fit, then replaced by a note, every record kept.

const freshDir = tempDirForFile('nested-call-turn-budget')

/** `store { id, text }`: accepts anything, answers a short JSON record. */
const storeTool: ToolDef = {
  spec: { name: 'store', description: 'Store a text under an id.', inputSchema: { type: 'object', properties: { id: { type: 'integer' }, text: { type: 'string' } }, required: ['id', 'text'] } },
  isConcurrencySafe: true,
  execute: (input: { id: number, text: string }) => JSON.stringify({ id: input.id, stored: input.text.length }),
}

const CALLS = 4
/** Each call's `text`: a script's four calls pass just under its argument total. */
const TEXT = SANDBOX_LIMITS.script.maxArgumentTotalChars / CALLS - 40
/** The JSON of one call's arguments, `{"id":0,"text":"…"}`. */
const ARGUMENT_CHARS = TEXT + '{"id":0,"text":""}'.length
/** The same in UTF-8 when `text` is "€": one UTF-16 unit, three bytes. */
const ARGUMENT_BYTES = ARGUMENT_CHARS + 2 * TEXT
/** Scripts of "€" whose arguments together pass the longest line a log may hold (V8's longest string, in bytes): 46. */
const SCRIPTS = Math.ceil(constants.MAX_STRING_LENGTH / (CALLS * ARGUMENT_BYTES)) + 1
const RETURNED = 'Returned: "stored"'
const OMITTED = /^\[Omitted: this turn's tool results and the arguments of its nested calls came to more than \d+ characters, and one turn holds at most \d+; the arguments of this call were not recorded\.\]$/

/** A script making `CALLS` calls of `TEXT` characters of `char` each. */
function script(char: string): string {
  return [
    `const text = ${JSON.stringify(char)}.repeat(${TEXT})`,
    `for (let i = 0; i < ${CALLS}; i++) await tools.store({ id: i, text })`,
    'return "stored"',
  ].join('\n')
}

function resultsOf(turns: readonly { content: readonly unknown[] }[]): ToolResultBlock[] {
  return turns.flatMap(turn => (turn.content as { type: string }[]).filter((block): block is ToolResultBlock => block.type === 'tool_result'))
}

/**
 * One turn of `scripts` codemode calls, each running `code`, on a file-backed
 * session; then the session is reloaded from a fresh store on the same
 * directory and replayed to a provider. Every call of the model is paired
 * with its own result, in order, and every nested call is recorded, in
 * order, with how it ended. Returns the reloaded results.
 */
async function turnOfScripts(scripts: number, code: string): Promise<ToolResultBlock[]> {
  const dir = freshDir()
  const session = await createSession({ store: createFileStore({ dir }) })
  const ids = Array.from({ length: scripts }, (_, i) => `script_${i}`)
  const provider = scriptedProvider([
    { toolCalls: ids.map(id => ({ id, name: 'codemode', input: { code } })) },
    { text: 'done' },
  ])
  const agent = createAgent({ provider, session, tools: { store: storeTool }, behavior: { codemode: { timeoutMs: 30_000 } } })
  const stats = await agent.run({ prompt: 'go' })
  await agent.destroy()
  expect(stats.stopReason).toBe('completed')
  expect(resultsOf(provider.requests[1].messages).map(block => [block.callId, block.output])).toEqual(ids.map(id => [id, RETURNED]))
  await session.save()

  const reloaded = await loadSession(session.id, { store: createFileStore({ dir }) })
  expect(reloaded.turns).toHaveLength(session.turns.length)
  const results = resultsOf(reloaded.turns)
  expect(results).toEqual(resultsOf(session.turns))
  expect(results.map(block => [block.callId, block.output, block.isError])).toEqual(ids.map(id => [id, RETURNED, undefined]))
  for (const block of results) {
    expect(block.calls?.map(call => [call.id, call.name, call.isError])).toEqual(
      Array.from({ length: CALLS }, (_, i) => [`${block.callId}.${i + 1}`, 'store', undefined]),
    )
  }

  const replay = scriptedProvider([{ text: 'again' }])
  const again = await createAgent({ provider: replay, session: reloaded }).run({ prompt: 'again' })
  expect(again.stopReason).toBe('completed')
  expect(resultsOf(replay.requests[0].messages).map(block => block.callId)).toEqual(ids)
  return results
}

describe('the arguments of a turn\'s nested calls count in its budget', () => {
  it(`${SCRIPTS} scripts passing 4 million characters of "€" each: the turn saves, reloads and replays, every call paired`, async () => {
    // Without the budget: 46 × 12 million bytes of arguments on one log line, which the store refused to write, and the run failed.
    const results = await turnOfScripts(SCRIPTS, script('€'))
    const records = results.flatMap(block => block.calls ?? [])
    // Kept in call order while they fit in what the results leave of the turn's budget; each later one is a note.
    const kept = Math.floor((TOOL_OUTPUT_LIMITS.maxTurnChars - results.length * RETURNED.length) / ARGUMENT_CHARS)
    expect(kept).toBeGreaterThan(CALLS)
    for (const record of records.slice(0, kept))
      expect(record.input).toEqual({ id: Number(record.id.split('.')[1]) - 1, text: '€'.repeat(TEXT) })
    for (const record of records.slice(kept))
      expect(record.input).toEqual({ __omittedInput: expect.stringMatching(OMITTED) })
    const recorded = records.reduce((sum, record) => sum + JSON.stringify(record.input).length, 0)
    expect(recorded).toBeLessThanOrEqual(TOOL_OUTPUT_LIMITS.maxTurnChars)
  }, 90_000)

  it('the results come first: when they leave no room, the arguments are notes and the results are as they were', async () => {
    // A script's call, then two results that take the rest of the budget but for fewer characters than the script passed.
    const bulk = 'x'.repeat((TOOL_OUTPUT_LIMITS.maxTurnChars - RETURNED.length - 100) / 2)
    const produce: ToolDef = { spec: { name: 'produce', description: 'Returns a lot.', inputSchema: { type: 'object' } }, execute: () => bulk }
    const dir = freshDir()
    const session = await createSession({ store: createFileStore({ dir }) })
    const provider = scriptedProvider([
      { toolCalls: [
        { id: 'script', name: 'codemode', input: { code: 'await tools.store({ id: 1, text: "z".repeat(200) }); return "stored"' } },
        { id: 'p1', name: 'produce', input: {} },
        { id: 'p2', name: 'produce', input: {} },
      ] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, session, tools: { store: storeTool, produce }, behavior: { codemode: true } })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
    await agent.destroy()
    await session.save()
    const results = resultsOf((await loadSession(session.id, { store: createFileStore({ dir }) })).turns)
    expect(results.map(block => [block.callId, block.output === bulk ? 'bulk' : block.output, block.isError])).toEqual([
      ['script', RETURNED, undefined],
      ['p1', 'bulk', undefined],
      ['p2', 'bulk', undefined],
    ])
    expect(results[0].calls).toEqual([{ id: 'script.1', name: 'store', input: { __omittedInput: expect.stringMatching(OMITTED) }, line: 1, durationMs: expect.any(Number) }])
  })

  it('within the budget, every call keeps its arguments', async () => {
    const results = await turnOfScripts(3, script('y'))
    for (const record of results.flatMap(block => block.calls ?? []))
      expect(record.input).toEqual({ id: Number(record.id.split('.')[1]) - 1, text: 'y'.repeat(TEXT) })
  })
})
