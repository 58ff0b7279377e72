import type { CompactEndContext } from '../../src'
import type { ScriptedTurn } from '../../src/testing'
import { Buffer } from 'node:buffer'
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { staleReads } from '../../src/policies/stale-reads'
import { unknownToolRecovery } from '../../src/policies/unknown-tool-recovery'
import { createSession } from '../../src/session'
import { runPolicyScript, scriptedProvider } from '../../src/testing'

// What the behavior policies make of text the model controls, driven through whole runs. Each size here is
// one that took from several seconds to minutes when a policy did work in the square of it (or overflowed
// the stack), and takes a fraction of a second now.

const readFile = tool({ name: 'read_file', description: 'Read a file', input: z.object({ path: z.string() }), execute: ({ path }) => `content of ${path}` })

/** A `shell` stand-in: the guards read its `command`, nothing runs. */
const shell = tool({ name: 'shell', description: 'Run a command', input: z.object({ command: z.string() }), execute: () => 'ok' })

/** Every text block of a request's messages, joined. */
function requestText(request: { messages: readonly { content: readonly { type: string, text?: string }[] }[] }): string {
  return request.messages.flatMap(message => message.content.map(block => block.type === 'text' ? block.text ?? '' : '')).join('\n')
}

describe('textToolCallRescue on a reply of nested function wrappers', () => {
  it('20,000 levels of {"type":"function","function":…} end the run normally; before, the parser recursed and the run rejected with RangeError', async () => {
    let reply = '{"name":"read_file","arguments":{}}'
    for (let i = 0; i < 20_000; i++)
      reply = `{"type":"function","function":${reply}}`
    const provider = scriptedProvider([{ text: reply }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { read_file: readFile }, behavior: { textToolCallRescue: {} } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
  })

  it('the one wrapper OpenAI writes is still recognized and rescued', async () => {
    const provider = scriptedProvider([{ text: '{"type":"function","function":{"name":"read_file","arguments":{"path":"a"}}}' }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { read_file: readFile }, behavior: { textToolCallRescue: {} } })
    await agent.run({ prompt: 'go' })
    expect(provider.requests).toHaveLength(2)
    expect(requestText(provider.requests[1] as never)).toContain('wrote a call to `read_file` as text')
  })
})

describe('repeatGuard on long shell commands', () => {
  it('a 480 KB command of 60,000 `cd a &&` prefixes is keyed in linear time (27 s for 40,000 before)', async () => {
    const command = `${'cd a && '.repeat(60_000)}ls`
    const provider = scriptedProvider([{ toolCalls: [{ name: 'shell', input: { command } }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { shell }, behavior: { repeatGuard: {} } })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
  })

  it('60,000 trailing `sleep 1;` segments likewise (22 s for 40,000 before)', async () => {
    const command = `ls; ${'sleep 1; '.repeat(60_000)}`
    const provider = scriptedProvider([{ toolCalls: [{ name: 'shell', input: { command } }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { shell }, behavior: { repeatGuard: {} } })
    expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
  })

  it('the prefixes and tails still fold into one streak: the 4th spelling of `ls` is blocked', async () => {
    const spellings = ['ls', 'cd a && ls', 'cd a && cd b && ls; sleep 2', 'sleep 1; ls']
    const provider = scriptedProvider([...spellings.map((command): ScriptedTurn => ({ toolCalls: [{ name: 'shell', input: { command } }] })), { text: 'done' }])
    const ran: string[] = []
    const recording = tool({ name: 'shell', description: 'Run', input: z.object({ command: z.string() }), execute: ({ command }) => {
      ran.push(command)
      return 'ok'
    } })
    const agent = createAgent({ provider, tools: { shell: recording }, behavior: { repeatGuard: {} } })
    await agent.run({ prompt: 'go' })
    expect(ran).toEqual(spellings.slice(0, 3))
  })

  it('in steer mode, a batch of 8,000 identical calls each get the note, in linear work (41 s before)', async () => {
    const provider = scriptedProvider([{ toolCalls: Array.from<{ name: string, input: Record<string, unknown> }>({ length: 8000 }).fill({ name: 'shell', input: { command: 'make test' } }) }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { shell }, behavior: { repeatGuard: { thresholdAction: 'steer', abortThreshold: 0, globalCeiling: 0 } } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    const results = provider.requests[1].messages.flatMap(message => message.content).filter(block => block.type === 'tool_result')
    const noted = results.filter(block => block.type === 'tool_result' && typeof block.output === 'string' && block.output.includes('not getting you anywhere'))
    // The first three calls are under the block threshold (4); every later one carries the note.
    expect(results).toHaveLength(8000)
    expect(noted).toHaveLength(8000 - 3)
  })
})

describe('repeatGuard state saved with the run', () => {
  it('keys of long commands are kept as digests: three 200 KB commands leave a few hundred bytes of guard state, not megabytes', async () => {
    const commands = ['a', 'b', 'c'].map(letter => `echo ${letter.repeat(200_000)}`)
    const provider = scriptedProvider([...commands.map((command): ScriptedTurn => ({ toolCalls: [{ name: 'shell', input: { command } }] })), { text: 'done' }])
    const session = await createSession()
    const agent = createAgent({ provider, session, tools: { shell }, behavior: { repeatGuard: { mode: 'both' } } })
    await agent.run({ prompt: 'go' })
    const state = session.runs.at(-1)!.state!.policies['repeat-guard']
    expect(JSON.stringify(state).length).toBeLessThan(2000)
  })

  it('a long command repeated is still one streak, blocked at the 4th call', async () => {
    const command = `echo ${'z'.repeat(100_000)}`
    const ran: number[] = []
    const counting = tool({ name: 'shell', description: 'Run', input: z.object({ command: z.string() }), execute: ({ command }) => {
      ran.push(command.length)
      return 'ok'
    } })
    const provider = scriptedProvider([...Array.from<ScriptedTurn>({ length: 5 }).fill({ toolCalls: [{ name: 'shell', input: { command } }] }), { text: 'done' }])
    const agent = createAgent({ provider, tools: { shell: counting }, behavior: { repeatGuard: { abortThreshold: 0, globalCeiling: 0 } } })
    await agent.run({ prompt: 'go' })
    expect(ran).toHaveLength(3)
  })
})

describe('unknownToolRecovery on hostile names', () => {
  it('a turn of 30,000 calls of distinct unknown names ends in linear work (16 s for 20,000 before) and nudges maxNudges times', async () => {
    const provider = scriptedProvider([{ toolCalls: Array.from({ length: 30_000 }, (_, i) => ({ name: `made_up_${i}`, input: {} })) }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { read_file: readFile }, behavior: { unknownToolRecovery: { maxNudges: 3 } } })
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.stopReason).toBe('completed')
    const nudges = requestText(provider.requests[1] as never).split('\n').filter(line => line.startsWith('There is no tool named'))
    expect(nudges).toEqual(['"made_up_0"', '"made_up_1"', '"made_up_2"'].map(name => `There is no tool named ${name}. Call only the tools this run offers, by their exact names.`))
  })

  it('keeps only the names it can still nudge about on its state', async () => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({ phase: 'result' as const, call: { name: `x${i}` }, result: 'Error', isError: true }))
    const { steps: done } = await runPolicyScript(unknownToolRecovery, { behavior: { unknownToolRecovery: { maxNudges: 2 } }, tools: ['read_file'], steps })
    expect(done.at(-1)!.state).toEqual({ nudges: 0, pending: ['x0', 'x1'] })
  })

  it('a name of a million characters: the nudge repeats 200 of them and the length, and suggesting names stays linear (12 s before)', async () => {
    const name = `read_${'e'.repeat(1_000_000)}`
    const provider = scriptedProvider([{ toolCalls: [{ name, input: {} }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { read_file: readFile }, behavior: { unknownToolRecovery: {} } })
    await agent.run({ prompt: 'go' })
    const nudge = requestText(provider.requests[1] as never).split('\n').find(line => line.startsWith('There is no tool named'))!
    expect(nudge).toBe(`There is no tool named "${name.slice(0, 200)}…" (1,000,005 characters). Did you mean "read_file"? Call the tool you meant by its exact name.`)
  })

  it('a custom message function still gets the name as the model wrote it', async () => {
    const name = 'x'.repeat(5000)
    const seen: number[] = []
    const provider = scriptedProvider([{ toolCalls: [{ name, input: {} }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { read_file: readFile }, behavior: { unknownToolRecovery: { message: ({ called }) => `${seen.push(called.length)}` } } })
    await agent.run({ prompt: 'go' })
    expect(seen).toEqual([5000])
  })

  it('near names are still suggested', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'reed_file', input: {} }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { read_file: readFile }, behavior: { unknownToolRecovery: {} } })
    await agent.run({ prompt: 'go' })
    expect(requestText(provider.requests[1] as never)).toContain('There is no tool named "reed_file". Did you mean "read_file"?')
  })
})

describe('elideStaleReads: \'notice\' over many reads', () => {
  it('remembers the latest 2,048 distinct paths, so each read costs a bounded update', async () => {
    const steps = Array.from({ length: 2100 }, (_, i) => ({ phase: 'result' as const, call: { name: 'read_file', input: { path: `f${i}` } }, result: 'text' }))
    const { steps: done } = await runPolicyScript(staleReads, { behavior: { elideStaleReads: 'notice' }, steps })
    const read = (done.at(-1)!.state as { read: string[] }).read
    expect(read).toHaveLength(2048)
    expect(read.at(-1)).toBe('f2099')
    expect(read[0]).toBe(`f${2100 - 2048}`)
  })
})

describe('compaction after a turn of many file calls', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zidane-hostile-compact-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const dump = tool({ name: 'dump', description: 'Print', input: z.object({ size: z.number() }), execute: ({ size }) => 'x'.repeat(size) })

  async function compactAfter(first: ScriptedTurn): Promise<CompactEndContext[]> {
    const provider = scriptedProvider([
      first,
      { toolCalls: [{ name: 'dump', input: { size: 60_000 } }] },
      { toolCalls: [{ name: 'dump', input: { size: 10 } }], usage: { input: 950 } },
      { text: 'SUMMARY' },
      { text: 'done' },
    ])
    const agent = createAgent({
      provider,
      execution: createProcessContext({ cwd: dir }),
      tools: { read_file: readFile, dump },
      behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2 } },
    })
    const ends: CompactEndContext[] = []
    agent.hooks.hook('compact:end', ctx => void ends.push(ctx))
    await agent.run({ prompt: 'go' })
    return ends
  }

  it('40,000 read_file calls of distinct paths are walked once to pick the files to put back (32 s before)', async () => {
    await writeFile(join(dir, 'f0'), 'the first one called')
    const ends = await compactAfter({ toolCalls: Array.from({ length: 40_000 }, (_, i) => ({ name: 'read_file', input: { path: `f${i}` } })) })
    expect(ends).toHaveLength(1)
    expect(ends[0].restoredFiles).toEqual(['f0'])
  })

  it('a UTF-8 file over 16 KiB whose cut falls inside a character is put back, cut before it', async () => {
    // 16,383 ASCII bytes, then a 3-byte character across the 16 KiB cut.
    await writeFile(join(dir, 'notes.md'), `${'a'.repeat(16_383)}€ and more`)
    const ends = await compactAfter({ toolCalls: [{ name: 'read_file', input: { path: 'notes.md' } }] })
    expect(ends[0].restoredFiles).toEqual(['notes.md'])
  })

  it('a file larger than read_file loads (32 MiB) is not read to be put back', async () => {
    await writeFile(join(dir, 'huge.log'), '')
    await truncate(join(dir, 'huge.log'), 33 * 1024 * 1024)
    await writeFile(join(dir, 'small.txt'), Buffer.from('small'))
    const ends = await compactAfter({ toolCalls: [{ name: 'read_file', input: { path: 'small.txt' } }, { name: 'read_file', input: { path: 'huge.log' } }] })
    expect(ends[0].restoredFiles).toEqual(['small.txt'])
  })
})

describe('persistMaxBytes over a batch of many large results', () => {
  it('2,000 persisted results of one turn trim the directory once, at the turn\'s end (two minutes before: a listing and a stat per file, per write)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zidane-hostile-persist-'))
    try {
      const big = tool({ name: 'big', description: 'Print', input: z.object({ i: z.number() }), execute: ({ i }) => `${i}`.padEnd(5000, 'x') })
      const provider = scriptedProvider([{ toolCalls: Array.from({ length: 2000 }, (_, i) => ({ name: 'big', input: { i } })) }, { text: 'done' }])
      const agent = createAgent({ provider, tools: { big }, behavior: { persistThreshold: 1000, persistDir: dir, persistMaxBytes: 1_000_000_000 } })
      expect((await agent.run({ prompt: 'go' })).stopReason).toBe('completed')
      const stubs = provider.requests[1].messages.flatMap(message => message.content).filter(block => block.type === 'tool_result' && String(block.output).startsWith('<persisted-output>'))
      expect(stubs).toHaveLength(2000)
    }
    finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
