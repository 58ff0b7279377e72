import type { Agent, AgentStats, ChildRunStats } from '../../src'
import type { SpawnTool } from '../../src/tools'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'
import { createSpawnTool } from '../../src/tools'

// `stats.output` typed from a zod `behavior.schema`. The type checks below are
// checked by the compiler (`npm run typecheck` covers test/): each
// `@ts-expect-error` fails the compile if the output turns into `any`, each
// `toEqualTypeOf` if it turns into `unknown`. The values are checked at the end.

const Verdict = z.object({ cause: z.string(), confidence: z.number() })
const Count = z.object({ files: z.number().default(0) })
type VerdictValue = z.infer<typeof Verdict>

const provider = scriptedProvider([{ text: 'done' }])

export async function agentSchema(): Promise<void> {
  const agent = createAgent({ provider, behavior: { schema: Verdict, maxTurns: 4 } })
  expectTypeOf(agent).toEqualTypeOf<Agent<VerdictValue>>()
  const stats = await agent.run({ prompt: 'Why?' })
  expectTypeOf(stats).toEqualTypeOf<AgentStats<VerdictValue>>()
  expectTypeOf(stats.output).toEqualTypeOf<VerdictValue | undefined>()
  // @ts-expect-error the output is a Verdict, which has no `files`
  void stats.output?.files
  const streamed = agent.stream({ prompt: 'Why?' })
  expectTypeOf(await streamed.result).toEqualTypeOf<AgentStats<VerdictValue>>()
}

export async function runSchema(): Promise<void> {
  const agent = createAgent({ provider })
  expectTypeOf(agent).toEqualTypeOf<Agent<unknown>>()
  expectTypeOf((await agent.run({ prompt: 'Why?' })).output).toEqualTypeOf<unknown>()
  // A run's own schema types that run: the parsed (output) side, defaults filled in.
  const stats = await agent.run({ prompt: 'Count.', behavior: { schema: Count } })
  expectTypeOf(stats.output).toEqualTypeOf<{ files: number } | undefined>()
  const streamed = agent.stream({ prompt: 'Count.', behavior: { schema: Count } })
  expectTypeOf((await streamed.result).output).toEqualTypeOf<{ files: number } | undefined>()
  // A JSON Schema object says nothing the compiler can read: unknown.
  const json = await agent.run({ prompt: 'Count.', behavior: { schema: { type: 'object' } } })
  expectTypeOf(json.output).toEqualTypeOf<unknown>()
}

export async function subagentSchema(): Promise<void> {
  const research = createSpawnTool({ child: { behavior: { schema: Verdict } } })
  expectTypeOf(research).toEqualTypeOf<SpawnTool<VerdictValue>>()
  const agent = createAgent({ provider, tools: { research } })
  const stats = await agent.run({ prompt: 'Delegate.' })
  expectTypeOf(research.childrenOf(stats)).toEqualTypeOf<ChildRunStats<VerdictValue>[]>()
  // @ts-expect-error the child's output is a Verdict, which has no `files`
  void research.childrenOf(stats)[0]?.output?.files
  expectTypeOf(createSpawnTool().childrenOf(stats)).toEqualTypeOf<ChildRunStats<unknown>[]>()
}

export function oldCodeStillCompiles(stats: AgentStats, child: ChildRunStats, typed: Agent<VerdictValue>): Agent {
  expectTypeOf(stats.output).toEqualTypeOf<unknown>()
  expectTypeOf(child.output).toEqualTypeOf<unknown>()
  // A typed agent is still an `Agent`, for code that takes any agent.
  return typed
}

describe('stats.output at run time', () => {
  it('is the schema\'s parsed value, on run() and stream()', async () => {
    const Labelled = z.object({ files: z.number(), label: z.string().default('files') })
    const answer = { toolCalls: [{ name: 'final_answer', input: { files: 3 } }] }
    const agent = createAgent({ provider: scriptedProvider([answer, answer]), behavior: { schema: Labelled } })
    const stats = await agent.run({ prompt: 'Count the files.' })
    expect(stats.output).toEqual({ files: 3, label: 'files' })
    const streamed = agent.stream({ prompt: 'Again.' })
    for await (const event of streamed) {
      if (event.type === 'done')
        expect(event.stats.output).toEqual({ files: 3, label: 'files' })
    }
    expect((await streamed.result).output?.label).toBe('files')
  })

  it('a spawn tool with a child schema finds its children in the parent\'s stats, with their output', async () => {
    const Finding = z.object({ title: z.string() })
    const childProvider = scriptedProvider([{ toolCalls: [{ name: 'final_answer', input: { title: 'retries' } }] }])
    const research = createSpawnTool({ child: { provider: childProvider, behavior: { schema: Finding } } })
    const other = createSpawnTool({ child: { provider: scriptedProvider([{ text: 'plain' }]) } })
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'spawn', input: { task: 'find it' } }] },
      { toolCalls: [{ name: 'helper', input: { task: 'other' } }] },
      { text: 'done' },
    ])
    const agent = createAgent({ provider, tools: { research, helper: { ...other, spec: { ...other.spec, name: 'helper' } } } })
    const stats = await agent.run({ prompt: 'Research.' })
    expect(stats.children).toHaveLength(2)
    const found = research.childrenOf(stats)
    expect(found.map(child => child.output?.title)).toEqual(['retries'])
    expect(found[0]!.stats.output).toEqual({ title: 'retries' })
  })
})
