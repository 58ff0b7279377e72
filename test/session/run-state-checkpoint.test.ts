import type { ScriptedTurn } from '../../src/testing'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createFileStore, createSession, loadSession } from '../../src/session'
import { scriptedProvider } from '../../src/testing'

// The run record saved at each turn boundary rides in the same write as the
// boundary's turns and leaves this leg's usage in those turns, so a long run
// writes a record of the same size at every boundary (not one that grows with
// the run), and a run cut off by a crash gets its usage back from the turns.

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const echo = {
  spec: { name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
  execute: (input: Record<string, unknown>) => `echo ${String(input.n)}`,
}

function toolTurns(count: number, from = 0): ScriptedTurn[] {
  const turns: ScriptedTurn[] = []
  for (let i = 0; i < count; i++) turns.push({ toolCalls: [{ name: 'echo', input: { n: from + i }, id: `call-${from + i}` }] })
  return [...turns, { text: 'done' }]
}

interface LogLine { type: string, run?: { id: string, status: string, state?: { usage: unknown[], usageInTurns?: number } } }

function logLines(file: string): { text: string, line: LogLine }[] {
  return readFileSync(file, 'utf8').trim().split('\n').map(text => ({ text, line: JSON.parse(text) as LogLine }))
}

async function fileSession() {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-checkpoint-'))
  dirs.push(dir)
  const store = createFileStore({ dir })
  const session = await createSession({ store })
  return { dir, store, session, file: join(dir, `${session.id}.jsonl`) }
}

describe('run state at turn boundaries', () => {
  it('writes one record per boundary, of the same size however long the run is', async () => {
    const { session, file } = await fileSession()
    const stats = await createAgent({ provider: scriptedProvider(toolTurns(30)), tools: { echo }, session }).run({ prompt: 'go' })
    expect(stats.turns).toBe(31)
    const lines = logLines(file)
    const records = lines.filter(({ line }) => line.type === 'run' && line.run!.status === 'running')
    // The start record, the prompt's, one per boundary the run went on from (never a second write for the same
    // boundary), and the one written with the last turn before the final record.
    expect(records.length).toBe(2 + 30 + 1)
    const boundary = records.slice(2, 32)
    expect(boundary.map(({ line }) => line.run!.state!.usageInTurns)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(boundary.every(({ line }) => line.run!.state!.usage.length === 0)).toBe(true)
    // The usage of turn 30 costs the record no more bytes than that of turn 3 (the count's digits aside).
    expect(boundary[29].text.length - boundary[2].text.length).toBeLessThanOrEqual(8)
    // The final record lists every turn's usage.
    const final = lines.findLast(({ line }) => line.type === 'run')!.line.run!
    expect(final.status).toBe('completed')
    expect(final.state!.usage).toHaveLength(31)
    expect(final.state!.usageInTurns).toBeUndefined()
  })

  it('a run cut off after a boundary gets its usage back from the turns when it is continued', async () => {
    const { store, session, file } = await fileSession()
    await createAgent({ provider: scriptedProvider(toolTurns(6)), tools: { echo }, session }).run({ prompt: 'go' })
    // A crash right after the fourth boundary: the log ends with that boundary's turns and record.
    const lines = logLines(file)
    const boundaries = lines.flatMap(({ line }, i) => line.type === 'run' && line.run!.state?.usageInTurns !== undefined ? [i] : [])
    const cut = boundaries[3]
    expect(lines[cut].line.run!.state!.usageInTurns).toBe(4)
    writeFileSync(file, `${lines.slice(0, cut + 1).map(({ text }) => text).join('\n')}\n`)

    const reopened = await loadSession(session.id, { store })
    const provider = scriptedProvider(toolTurns(2, 100))
    const continued = await createAgent({ provider, tools: { echo }, session: reopened }).run()
    expect(continued.stopReason).toBe('completed')
    const final = reopened.runs.at(-1)!.state!
    // Four turns before the crash, three after: the budgets of the continuation saw all seven.
    expect(final.turnCount).toBe(7)
    expect(final.usage).toHaveLength(7)
  })
})
