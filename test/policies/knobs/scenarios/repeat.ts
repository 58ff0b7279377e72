import type { AgentBehavior, RepeatGuardConfig, ToolDef } from '../../../../src'
import type { RepeatKnobs } from '../../../../src/knobs/repeat-knobs'
import type { KnobScenario, SliceScenarios } from '../harness'
import { createAgent } from '../../../../src'
import { scriptedProvider } from '../../../../src/testing'

interface Call { name: string, input: Record<string, unknown> }

/** A tool that answers `ran <name>` (custom `shell` / `read_file` stand-ins keep the runs offline). */
function answering(name: string): ToolDef {
  return {
    spec: { name, description: `${name} stand-in`, inputSchema: { type: 'object', properties: {} } },
    execute: () => `ran ${name}`,
  }
}

const TOOLS = { shell: answering('shell'), read_file: answering('read_file'), status: answering('status') }

/** How each answered call read to the model, then how the run ended. */
function label(result: unknown, isError: boolean): string {
  const text = typeof result === 'string' ? result : JSON.stringify(result)
  if (text.startsWith('Blocked:'))
    return 'blocked'
  if (text.startsWith('Aborted:'))
    return 'aborted'
  if (text.startsWith('Error: there is no tool'))
    return 'refused'
  if (text.startsWith('ran ') && text.includes('\n\n'))
    return 'steered'
  return isError ? 'error' : 'ok'
}

/** One call per model turn, then a final answer; returns the labels of the answers and the stop reason. */
async function guarded(behavior: AgentBehavior, calls: readonly Call[], detail: 'labels' | 'texts' = 'labels'): Promise<string[]> {
  const provider = scriptedProvider([...calls.map(call => ({ toolCalls: [call] })), { text: 'done' }])
  const seen: string[] = []
  const agent = createAgent({
    provider,
    tools: TOOLS,
    behavior,
    hooks: { 'tool:after': ({ result, isError }) => void seen.push(detail === 'labels' ? label(result, isError) : String(result)) },
  })
  const stats = await agent.run({ prompt: 'go' })
  await agent.destroy()
  return [...seen, stats.stopReason]
}

const sh = (command: string): Call => ({ name: 'shell', input: { command } })
const status = (): Call => ({ name: 'status', input: { id: 1 } })
const times = <T>(n: number, item: T): T[] => Array.from<T>({ length: n }).fill(item)
const alternating = [sh('a'), sh('b'), sh('a'), sh('b'), sh('a'), sh('b'), sh('a'), sh('b')]

/** A field scenario: the guard is always on, with `base` under the one field the harness sets. */
function field(value: unknown, calls: readonly Call[], unset: unknown, set: unknown, base: RepeatGuardConfig = {}, detail: 'labels' | 'texts' = 'labels'): Omit<KnobScenario, 'fields'> {
  return {
    value,
    outcome: behavior => guarded({ repeatGuard: { ...base, ...behavior.repeatGuard } }, calls, detail),
    unset,
    set,
  }
}

export const repeatScenarios: SliceScenarios<RepeatKnobs> = {
  repeatGuard: {
    value: {},
    outcome: behavior => guarded(behavior, times(5, sh('npm test'))),
    unset: [...times(5, 'ok'), 'completed'],
    set: ['ok', 'ok', 'ok', 'blocked', 'blocked', 'completed'],
    fields: {
      mode: field('window', alternating, [...times(8, 'ok'), 'completed'], [...times(6, 'ok'), 'blocked', 'blocked', 'completed']),
      windowSize: field(8, alternating, [...times(8, 'ok'), 'completed'], [...times(6, 'ok'), 'blocked', 'blocked', 'completed']),
      blockThreshold: field(2, times(3, sh('x')), ['ok', 'ok', 'ok', 'completed'], ['ok', 'blocked', 'blocked', 'completed']),
      abortThreshold: field(5, times(6, sh('x')), ['ok', 'ok', 'ok', 'blocked', 'blocked', 'blocked', 'completed'], ['ok', 'ok', 'ok', 'blocked', 'aborted', 'aborted']),
      thresholdAction: field('steer', times(4, sh('x')), ['ok', 'ok', 'ok', 'blocked', 'completed'], ['ok', 'ok', 'ok', 'steered', 'completed']),
      steeringMessage: {
        ...field('Pick another tool.', times(4, sh('x')), undefined, ['ran shell', 'ran shell', 'ran shell', 'Blocked: Pick another tool.', 'completed'], {}, 'texts'),
        unset: ['ran shell', 'ran shell', 'ran shell', 'Blocked: You have made the same shell call 4 times in a row and it is not getting you anywhere. Do not repeat it: change the input, use a different tool, or say what is stopping you.', 'completed'],
      },
      blockReason: {
        ...field('Old wording.', times(4, sh('x')), undefined, ['ran shell', 'ran shell', 'ran shell', 'Blocked: Old wording.', 'completed'], {}, 'texts'),
        unset: ['ran shell', 'ran shell', 'ran shell', 'Blocked: You have made the same shell call 4 times in a row and it is not getting you anywhere. Do not repeat it: change the input, use a different tool, or say what is stopping you.', 'completed'],
      },
      normalize: field(() => 'one key', [sh('a'), sh('b'), sh('c'), sh('d')], [...times(4, 'ok'), 'completed'], ['ok', 'ok', 'ok', 'blocked', 'completed']),
      tools: field(['status'], times(4, status()), [...times(4, 'ok'), 'completed'], ['ok', 'ok', 'ok', 'blocked', 'completed']),
      // `ghost` is no tool of the run: the loop refuses each call before the guard sees it.
      countBlockedCalls: field(true, times(4, { name: 'ghost', input: {} }), [...times(4, 'refused'), 'completed'], ['refused', 'refused', 'aborted', 'aborted'], { tools: ['ghost'], blockThreshold: 2, abortThreshold: 3, globalCeiling: 0 }),
      globalCeiling: field(3, times(4, status()), [...times(4, 'ok'), 'completed'], ['ok', 'ok', 'aborted', 'aborted']),
      globalCeilingExclude: field(['status'], times(4, status()), ['ok', 'ok', 'aborted', 'aborted'], [...times(4, 'ok'), 'completed'], { globalCeiling: 3 }),
    },
  },
}
