import type { AgentBehavior, StreamOptions } from '../../../../src'
import type { CompactionKnobs } from '../../../../src/knobs/compaction-knobs'
import type { ScriptedTurn } from '../../../../src/testing'
import type { SliceScenarios } from '../harness'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { createAgent, tool } from '../../../../src'
import { createProcessContext } from '../../../../src/contexts'
import { scriptedProvider } from '../../../../src/testing'

const dump = tool({
  name: 'dump',
  description: 'Print a block of text',
  input: z.object({ size: z.number() }),
  execute: ({ size }) => 'x'.repeat(size),
})

/** A run of `count` tool turns, each printing `size` bytes, then an answer; returns every request sent. */
async function requestsOf(behavior: AgentBehavior, count: number, size: number, window?: number): Promise<StreamOptions[]> {
  const turns: ScriptedTurn[] = []
  for (let i = 0; i < count; i++)
    turns.push({ toolCalls: [{ name: 'dump', input: { size } }] })
  const provider = scriptedProvider([...turns, { text: 'done' }], window === undefined ? {} : { contextWindow: window })
  const agent = createAgent({ provider, tools: { dump }, behavior })
  await agent.run({ prompt: 'go' })
  return provider.requests
}

const STUB = /tool output compacted/g

/** How many tool outputs the last request carried as the compaction stub. */
async function stubs(behavior: AgentBehavior, count: number, size: number, window?: number): Promise<number> {
  const requests = await requestsOf(behavior, count, size, window)
  return (JSON.stringify(requests.at(-1)!.messages).match(STUB) ?? []).length
}

const tail = (behavior: AgentBehavior): AgentBehavior => ({ compactStrategy: 'tail', ...behavior })

/**
 * An auto-compacting run: three tool turns, the third reporting 900 prompt
 * tokens; with compaction the fourth request is the summary call. Returns how
 * many turns the summary replaced (0: no compaction) and whether the request
 * after it put a file back.
 */
async function compaction(behavior: AgentBehavior, window?: number): Promise<{ replaced: number, restored: boolean }> {
  const dir = await mkdtemp(join(tmpdir(), 'zidane-knob-'))
  await writeFile(join(dir, 'notes.txt'), 'notes on disk')
  // The read returns more than the restored file takes: a kept compaction must leave the request smaller.
  const readFile = tool({ name: 'read_file', description: 'Read', input: z.object({ path: z.string() }), execute: () => 'notes '.repeat(40) })
  const provider = scriptedProvider([
    { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }], usage: { input: 100 } },
    { toolCalls: [{ name: 'dump', input: { size: 10 } }], usage: { input: 100 } },
    { toolCalls: [{ name: 'dump', input: { size: 10 } }], usage: { input: 100 } },
    { toolCalls: [{ name: 'dump', input: { size: 10 } }], usage: { input: 100, cacheRead: 800 } },
    { respond: request => request.messages.at(-1)!.content.some(block => block.type === 'text' && block.text.includes('compacted')) ? { text: 'SUMMARY' } : { text: 'done' } },
    { text: 'done' },
  ], window === undefined ? {} : { contextWindow: window })
  const agent = createAgent({ provider, execution: createProcessContext({ cwd: dir }), tools: { dump, read_file: readFile }, behavior })
  try {
    await agent.run({ prompt: 'go' })
  }
  finally {
    await rm(dir, { recursive: true, force: true })
  }
  const last = provider.requests.at(-1)!.messages
  const block = last.flatMap(message => message.content).find(b => b.type === 'compact-summary')
  return {
    replaced: block?.type === 'compact-summary' ? block.replacesTurnIds.length : 0,
    restored: JSON.stringify(last).includes('notes on disk'),
  }
}

const autoOn = (behavior: AgentBehavior): AgentBehavior => ({ ...behavior, autoCompact: { contextWindow: 1000, ...(behavior.autoCompact as object) } })

export const compactionScenarios: SliceScenarios<CompactionKnobs> = {
  compactStrategy: {
    // Four outputs of 50 KB pass the 128 KiB default threshold: the two oldest are stubbed.
    value: 'tail',
    outcome: behavior => stubs(behavior, 4, 50_000),
    unset: 0,
    set: 2,
  },
  compactThreshold: {
    value: 3000,
    outcome: behavior => stubs(tail(behavior), 4, 2000),
    unset: 0,
    set: 2,
  },
  compactThresholdWindowFraction: {
    // Five outputs of 40 KB: 200 KB passes 128 KiB, but not half of a 100k-token window (200 KB).
    value: 0.5,
    outcome: behavior => stubs(tail(behavior), 5, 40_000, 100_000),
    unset: 2,
    set: 0,
  },
  compactKeepTurns: {
    value: 20,
    outcome: behavior => stubs(tail({ compactThreshold: 1000, ...behavior }), 4, 2000),
    unset: 2,
    set: 0,
  },
  compactLowWaterFraction: {
    value: 0.1,
    outcome: behavior => stubs(tail({ compactThreshold: 5000, compactKeepTurns: 0, ...behavior }), 6, 2000),
    unset: 4,
    set: 6,
  },
  compactSkip: {
    value: {},
    outcome: behavior => stubs(tail({ compactThreshold: 1000, compactKeepTurns: 0, ...behavior }), 3, 2000, 100_000),
    unset: 3,
    set: 0,
    fields: {
      minContextWindow: { value: 50_000, unset: 3, set: 0 },
      providers: { value: ['scripted'], unset: 3, set: 0 },
    },
  },
  autoCompact: {
    value: true,
    outcome: behavior => compaction(behavior, 1000),
    unset: { replaced: 0, restored: false },
    set: { replaced: 3, restored: true },
    fields: {
      threshold: { value: 0.95, outcome: behavior => compaction(autoOn(behavior)), unset: { replaced: 3, restored: true }, set: { replaced: 0, restored: false } },
      contextWindow: { value: 1000, unset: { replaced: 0, restored: false }, set: { replaced: 3, restored: true } },
      keepTurns: { value: 2, outcome: behavior => compaction(autoOn(behavior)), unset: { replaced: 3, restored: true }, set: { replaced: 7, restored: true } },
      restore: { value: false, outcome: behavior => compaction(autoOn(behavior)), unset: { replaced: 3, restored: true }, set: { replaced: 3, restored: false } },
    },
  },
}
