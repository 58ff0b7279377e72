import type { SessionTurn } from '../../src/core/content'
import type { AfterTurnStep } from '../../src/testing'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createProcessContext } from '../../src/contexts'
import { AgentContextExceededError, AgentProviderError, CompactionRefusedError } from '../../src/errors'
import { autoCompact } from '../../src/policies/auto-compact'
import { compactStrategy } from '../../src/policies/compact-strategy'
import { tailStart, touchedFiles } from '../../src/policies/compact-summary'
import { contextRecovery } from '../../src/policies/context-recovery'
import { runPolicyScript } from '../../src/testing'

const turn = (id: string, role: SessionTurn['role'], content: SessionTurn['content']): SessionTurn => ({ id, role, content, createdAt: 0 })
const conversation: SessionTurn[] = [
  turn('u0', 'user', [{ type: 'text', text: 'go' }]),
  turn('a1', 'assistant', [{ type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'src/a.ts' } }]),
  turn('r1', 'user', [{ type: 'tool_result', callId: 'c1', output: 'old a' }]),
  turn('a2', 'assistant', [{ type: 'tool_call', id: 'c2', name: 'edit', input: { path: 'src/b.ts' } }]),
  turn('r2', 'user', [{ type: 'tool_result', callId: 'c2', output: 'edited' }]),
  turn('a3', 'assistant', [{ type: 'tool_call', id: 'c3', name: 'dump', input: {} }]),
  turn('r3', 'user', [{ type: 'tool_result', callId: 'c3', output: 'x' }]),
]
const results = [{ callId: 'c3', output: 'x', isError: false }]
const crossing: AfterTurnStep = { phase: 'afterTurn', usage: { input: 100, cacheRead: 800 }, toolResults: results }
const below: AfterTurnStep = { phase: 'afterTurn', usage: { input: 100, cacheRead: 600 }, toolResults: results }
const summary = { text: 'the summary', usage: { input: 50, output: 20, cacheRead: 900 }, model: 'm' }

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('auto-compact policy', () => {
  it('is off without autoCompact, and inert (saying so in debug output) without a window', async () => {
    expect((await runPolicyScript(autoCompact, { steps: [] })).enabled).toBe(false)
    vi.stubEnv('ZIDANE_DEBUG', '1')
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    expect((await runPolicyScript(autoCompact, { behavior: { autoCompact: true }, steps: [] })).enabled).toBe(false)
    expect(log.mock.calls.map(args => String(args[0]))).toEqual([expect.stringContaining('no context window is known')])
    log.mockRestore()
    expect((await runPolicyScript(autoCompact, { behavior: { autoCompact: true }, contextWindow: 1000, steps: [] })).enabled).toBe(true)
  })

  it('summarizes once a turn crosses the threshold, steering the compact-summary into the next turn', async () => {
    const script = await runPolicyScript(autoCompact, {
      behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2, restore: false } },
      turns: conversation,
      complete: () => summary,
      steps: [below, crossing, crossing, crossing],
    })
    expect(script.completions).toHaveLength(2)
    expect(script.completions[0].prompt[0]).toMatchObject({ type: 'text', text: expect.stringContaining('last 2 messages') })
    const [first, second, third, fourth] = script.steps
    expect(first).toMatchObject({ messages: [] })
    expect(second).toMatchObject({ keepGoing: false, messages: [{ injected: 'compact', content: [{ type: 'compact-summary', summary: 'the summary', model: 'm', replacesTurnIds: ['u0', 'a1', 'r1', 'a2', 'r2'], usage: summary.usage }] }] })
    // The turn right after a compaction is not summarized again; the one after may be.
    expect(third).toMatchObject({ messages: [] })
    expect(fourth.phase === 'afterTurn' && fourth.messages).toHaveLength(1)
    expect(script.events.map(event => event.hook)).toEqual(['compact:start', 'compact:end', 'compact:start', 'compact:end'])
    expect(script.events[0].context).toMatchObject({ trigger: 'threshold', inputTokens: 900, contextWindow: 1000 })
  })

  it('does not summarize a turn that ends the run, and reports a failed summary on compact:end', async () => {
    const ending = await runPolicyScript(autoCompact, { behavior: { autoCompact: { contextWindow: 1000 } }, turns: conversation, complete: () => summary, steps: [{ ...crossing, toolResults: [] }, { ...crossing, decided: { stop: 'max-turns' } }] })
    expect(ending.completions).toHaveLength(0)

    const failing = await runPolicyScript(autoCompact, { behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2 } }, turns: conversation, complete: () => ({ ...summary, text: '  ' }), steps: [crossing] })
    expect(failing.steps[0]).toMatchObject({ messages: [] })
    expect(failing.events[1]).toMatchObject({ hook: 'compact:end', context: { refused: 'empty', error: expect.any(CompactionRefusedError) } })

    // A refused summary is not asked for again on the very next turn.
    const refusing = await runPolicyScript(autoCompact, { behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2 } }, turns: conversation, complete: () => ({ ...summary, usage: { ...summary.usage, finishReason: 'length' } }), steps: [crossing, crossing, crossing] })
    expect(refusing.completions).toHaveLength(2)
    expect(refusing.steps.every(step => step.phase === 'afterTurn' && step.messages.length === 0)).toBe(true)
    expect(refusing.events.filter(event => event.hook === 'compact:end').map(event => (event.context as { refused?: string }).refused)).toEqual(['cut-off', 'cut-off'])
  })
})

describe('what a kept compaction may add', () => {
  it('restores only the files that fit in what the summary saved, so the request shrinks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zidane-restore-'))
    await mkdir(join(dir, 'src'))
    await writeFile(join(dir, 'src/a.ts'), 'a'.repeat(10_000))
    await writeFile(join(dir, 'src/b.ts'), 'ok')
    // The summarized turns hold about 270 bytes: b.ts (about 60 bytes restored) fits, a.ts does not.
    const longer = conversation.map(t => t.id === 'r1' ? { ...t, content: [{ type: 'tool_result' as const, callId: 'c1', output: 'old a'.repeat(40) }] } : t)
    const script = await runPolicyScript(autoCompact, {
      behavior: { autoCompact: { contextWindow: 1000, keepTurns: 2 } },
      turns: longer,
      execution: createProcessContext({ cwd: dir }),
      complete: () => ({ ...summary, text: 's' }),
      steps: [crossing],
    })
    await rm(dir, { recursive: true, force: true })
    expect(script.events[1]).toMatchObject({ hook: 'compact:end', context: { summary: 's', restoredFiles: ['src/b.ts'] } })
    expect(script.completions[0].maxTokens).toBe(100)
  })
})

describe('context-recovery policy', () => {
  const overflow = new AgentContextExceededError('prompt is too long')
  it('compacts from the stubbed older turns and retries once, with the summary joining the retry', async () => {
    const script = await runPolicyScript(contextRecovery, {
      behavior: { autoCompact: { keepTurns: 2, restore: false } },
      turns: conversation,
      complete: () => summary,
      steps: [{ phase: 'providerError', error: overflow }, { phase: 'providerError', error: overflow, retried: true }],
    })
    expect(script.steps[0]).toMatchObject({ verdict: 'retry', messages: [{ content: [{ type: 'compact-summary', summary: 'the summary' }] }] })
    expect(script.steps[1]).not.toHaveProperty('verdict')
    const sent = script.completions[0].messages!
    expect(sent.map(message => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user'])
    expect(JSON.stringify(sent)).toContain('tool output compacted')
  })

  it('leaves other errors, and conversations with nothing older than the tail, alone', async () => {
    const other = new AgentProviderError('boom', { kind: 'server', attempts: 1 })
    const script = await runPolicyScript(contextRecovery, { turns: conversation, complete: () => summary, steps: [{ phase: 'providerError', error: other }] })
    expect(script.steps[0]).not.toHaveProperty('verdict')
    const short = await runPolicyScript(contextRecovery, { turns: conversation.slice(0, 1), complete: () => summary, steps: [{ phase: 'providerError', error: overflow }] })
    expect(short.steps[0]).not.toHaveProperty('verdict')
    expect(short.completions).toHaveLength(0)
  })
})

describe('the tail boundary and the restored files', () => {
  it('never opens the tail on tool results, and lists touched files newest first', () => {
    expect(tailStart(conversation, 2)).toBe(5)
    expect(tailStart(conversation, 1)).toBe(5)
    expect(tailStart(conversation, 3)).toBe(3)
    expect(tailStart(conversation, 100)).toBe(0)
    expect(touchedFiles(conversation)).toEqual(['src/b.ts', 'src/a.ts'])
  })
})

describe('compact-strategy policy', () => {
  it('is on for \'tail\' and for a function, off otherwise, and contributes a sent-slot stage', async () => {
    expect((await runPolicyScript(compactStrategy, { steps: [] })).enabled).toBe(false)
    expect((await runPolicyScript(compactStrategy, { behavior: { compactStrategy: 'off' }, steps: [] })).enabled).toBe(false)
    const tail = await runPolicyScript(compactStrategy, { behavior: { compactStrategy: 'tail' }, steps: [] })
    expect(tail.wireStages).toMatchObject([{ name: 'tail-compaction', slot: 'sent' }])
    const custom = await runPolicyScript(compactStrategy, { behavior: { compactStrategy: messages => messages }, steps: [] })
    expect(custom.wireStages).toMatchObject([{ name: 'compact-function', slot: 'sent' }])
  })
})
