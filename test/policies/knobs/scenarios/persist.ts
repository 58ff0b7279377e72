import type { AgentBehavior } from '../../../../src'
import type { PersistKnobs } from '../../../../src/knobs/persist-knobs'
import type { SliceScenarios } from '../harness'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { createAgent, tool } from '../../../../src'
import { scriptedProvider } from '../../../../src/testing'

/** A tool that prints `size` characters of `char`. */
const dump = tool({
  name: 'dump',
  description: 'Print many characters',
  input: z.object({ size: z.number(), char: z.string() }),
  execute: ({ size, char }) => char.repeat(size),
})

/**
 * Two `dump` calls (300 and 200 bytes, the second in a later turn) in a fresh
 * directory, with `base` under `behavior`; returns whether the model saw stubs
 * and how many payload files the directory keeps.
 */
async function persistRun(base: AgentBehavior, behavior: AgentBehavior): Promise<{ stubs: boolean[], files: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-knobs-persist-'))
  const target = join(dir, 'results')
  const provider = scriptedProvider([
    { toolCalls: [{ id: 'call_1', name: 'dump', input: { size: 300, char: 'a' } }] },
    { toolCalls: [{ id: 'call_2', name: 'dump', input: { size: 200, char: 'b' } }] },
    { text: 'done' },
  ])
  const stubs: boolean[] = []
  const agent = createAgent({
    provider,
    tools: { dump },
    behavior: { ...withDir(base, target), ...withDir(behavior, target) },
    hooks: { 'tool:after': ctx => void stubs.push(String(ctx.result).startsWith('<persisted-output>')) },
  })
  await agent.run({ prompt: 'go' })
  await agent.destroy()
  let files = 0
  try {
    files = readdirSync(target).filter(name => name.endsWith('.txt')).length
  }
  catch {}
  return { stubs, files }
}

/** `persistDir: 'DIR'` in a scenario stands for the run's fresh directory. */
function withDir(behavior: AgentBehavior, dir: string): AgentBehavior {
  return behavior.persistDir === 'DIR' ? { ...behavior, persistDir: dir } : behavior
}

export const persistScenarios: SliceScenarios<PersistKnobs> = {
  persistThreshold: {
    value: 100,
    outcome: behavior => persistRun({ persistDir: 'DIR' }, behavior),
    unset: { stubs: [false, false], files: 0 },
    set: { stubs: [true, true], files: 2 },
  },
  persistDir: {
    value: 'DIR',
    outcome: behavior => persistRun({ persistThreshold: 100 }, behavior),
    unset: { stubs: [false, false], files: 0 },
    set: { stubs: [true, true], files: 2 },
  },
  persistExcludeTools: {
    value: ['dump'],
    outcome: behavior => persistRun({ persistThreshold: 100, persistDir: 'DIR' }, behavior),
    unset: { stubs: [true, true], files: 2 },
    set: { stubs: [false, false], files: 0 },
  },
  persistMaxBytes: {
    // 300 + 200 bytes exceed 400: the older payload goes once the newer lands.
    value: 400,
    outcome: behavior => persistRun({ persistThreshold: 100, persistDir: 'DIR' }, behavior),
    unset: { stubs: [true, true], files: 2 },
    set: { stubs: [true, true], files: 1 },
  },
}
