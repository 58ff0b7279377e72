import type { AgentBehavior, CallDecision, RepeatGuardConfig } from '../../src'
import type { GateBatchStep, PolicyScriptStep, ScriptedCall } from '../../src/testing'
import { describe, expect, it } from 'vitest'
import { repeatGuard } from '../../src/policies/repeat-guard'
import { runPolicyScript } from '../../src/testing'

const sh = (command: string): ScriptedCall => ({ name: 'shell', input: { command } })
const read = (path: string): ScriptedCall => ({ name: 'read_file', input: { path } })
const other = (name: string, input: Record<string, unknown> = {}): ScriptedCall => ({ name, input })

/** One batch per call: the model makes one call per turn. */
function oneByOne(calls: readonly ScriptedCall[]): GateBatchStep[] {
  return calls.map(call => ({ phase: 'gateBatch', calls: [call] }))
}

async function play(config: RepeatGuardConfig, steps: readonly PolicyScriptStep[], behavior: AgentBehavior = {}) {
  return runPolicyScript(repeatGuard, { behavior: { ...behavior, repeatGuard: config }, steps })
}

/** Each call's decision type (`-` for none), over one-call batches. */
async function verdicts(config: RepeatGuardConfig, calls: readonly ScriptedCall[]): Promise<string[]> {
  const { steps } = await play(config, oneByOne(calls))
  return steps.map(step => step.phase === 'gateBatch' ? step.decisions[0]?.type ?? '-' : '?')
}

const times = <T>(n: number, item: T): T[] => Array.from<T>({ length: n }).fill(item)

describe('repeat-guard: on and off', () => {
  it('is off without repeatGuard, on with an empty config', async () => {
    expect((await runPolicyScript(repeatGuard, { steps: [] })).enabled).toBe(false)
    expect((await play({}, [])).enabled).toBe(true)
  })
})

describe('repeat-guard: the chain', () => {
  it('blocks a shell command at its 4th back-to-back repeat and aborts the run at the 8th', async () => {
    const result = await play({}, oneByOne(times(9, sh('npm test'))))
    const types = result.steps.map(step => step.phase === 'gateBatch' ? step.decisions[0]?.type ?? '-' : '?')
    expect(types).toEqual(['-', '-', '-', 'block', 'block', 'block', 'block', 'abort'])
    expect(result.abortReason).toBe('Repeat guard: shell was called 8 times with the same input')
    const fourth = result.steps[3]
    expect(fourth.phase === 'gateBatch' && fourth.decisions[0]).toMatchObject({ type: 'block', reason: expect.stringContaining('same shell call 4 times in a row') })
    expect(fourth.events).toEqual([{
      hook: 'repeat-guard:exceeded',
      context: expect.objectContaining({ runId: 'policy-script', depth: 0, callId: 'call-3-0', name: 'shell', input: { command: 'npm test' }, key: '$ npm test', count: 4, threshold: 4, action: 'block', counter: 'chain' }),
      turn: 1,
    }])
    expect(result.steps[7].events[0].context).toMatchObject({ action: 'abort', count: 8, threshold: 8, message: result.abortReason })
  })

  it('gives read_file more room (6 / 12) unless a threshold is set explicitly', async () => {
    const reads = times(12, read('a.ts'))
    expect(await verdicts({}, reads)).toEqual([...times(5, '-'), ...times(6, 'block'), 'abort'])
    expect((await verdicts({ blockThreshold: 3, abortThreshold: 5 }, reads)).slice(0, 5)).toEqual(['-', '-', 'block', 'block', 'abort'])
  })

  it('any other call between two repeats breaks the chain, tracked or not', async () => {
    const calls = [sh('ls'), sh('ls'), sh('ls'), other('search', { q: 'x' }), sh('ls'), sh('ls'), sh('ls'), sh('pwd'), sh('ls')]
    expect(await verdicts({}, calls)).toEqual(times(9, '-'))
  })

  it('counts exactly inside one parallel batch', async () => {
    const { steps } = await play({}, [{ phase: 'gateBatch', calls: times(5, sh('make')) }])
    expect(steps[0].phase === 'gateBatch' && steps[0].decisions.map(decision => decision?.type ?? '-')).toEqual(['-', '-', '-', 'block', 'block'])
  })

  it('clamps: a block threshold below 2 is 2, an abort not above the block threshold is one above it, 0 or Infinity turns the abort off', async () => {
    expect(await verdicts({ blockThreshold: 1, abortThreshold: 1 }, times(3, sh('x')))).toEqual(['-', 'block', 'abort'])
    expect(await verdicts({ blockThreshold: 5, abortThreshold: 3 }, times(6, sh('x')))).toEqual([...times(4, '-'), 'block', 'abort'])
    for (const abortThreshold of [0, -1, Number.POSITIVE_INFINITY])
      expect(await verdicts({ abortThreshold, globalCeiling: 0 }, times(20, sh('x')))).toEqual([...times(3, '-'), ...times(17, 'block')])
  })
})

describe('repeat-guard: window counting', () => {
  const alternating = [sh('a'), sh('b'), sh('a'), sh('b'), sh('a'), sh('b'), sh('a'), sh('b')]

  it('the chain never sees an A-B alternation; the window does', async () => {
    expect(await verdicts({}, alternating)).toEqual(times(8, '-'))
    expect(await verdicts({ mode: 'window' }, alternating)).toEqual(['-', '-', '-', '-', '-', '-', 'block', 'block'])
  })

  it('windowSize alone asks for the window, and the window is raised to the abort threshold', async () => {
    // A window of 2 would never hold 4 repeats of one key; raised to 8, it does.
    expect(await verdicts({ windowSize: 2 }, alternating)).toEqual(['-', '-', '-', '-', '-', '-', 'block', 'block'])
    // A chain-only config with the same calls never trips.
    expect(await verdicts({ mode: 'chain', windowSize: 2 }, alternating)).toEqual(times(8, '-'))
  })

  it('a repeat that falls out of the window no longer counts', async () => {
    const spread = [sh('a'), sh('b'), sh('c'), sh('d'), sh('a'), sh('b'), sh('c'), sh('d'), sh('a'), sh('b'), sh('c'), sh('d'), sh('a')]
    expect((await verdicts({ mode: 'window', windowSize: 8, blockThreshold: 3, abortThreshold: 0 }, spread)).at(-1)).toBe('-')
    expect((await verdicts({ mode: 'window', windowSize: 16, blockThreshold: 3, abortThreshold: 0 }, spread)).at(-1)).toBe('block')
  })

  it('both: the chain and the window each trip it, and the hook names the counter', async () => {
    const chained = await play({ mode: 'both' }, oneByOne(times(4, sh('a'))))
    expect(chained.steps[3].events[0].context).toMatchObject({ counter: 'chain', action: 'block' })
    const windowed = await play({ mode: 'both' }, oneByOne(alternating))
    expect(windowed.steps[6].events[0].context).toMatchObject({ counter: 'window', action: 'block', count: 4 })
  })
})

describe('repeat-guard: what the model reads', () => {
  it('steer runs the call and appends the steering note to its result; the abort still blocks', async () => {
    const steps: PolicyScriptStep[] = []
    for (let i = 0; i < 4; i++)
      steps.push({ phase: 'gateBatch', calls: [{ ...sh('npm test'), id: `c${i}` }] }, { phase: 'result', call: { ...sh('npm test'), id: `c${i}` }, result: `FAIL ${i}`, isError: true })
    const { steps: out } = await play({ thresholdAction: 'steer', steeringMessage: 'Try something else.' }, steps)
    expect(out.filter(step => step.phase === 'gateBatch').map(step => step.phase === 'gateBatch' && step.decisions[0])).toEqual([undefined, undefined, undefined, undefined])
    expect(out.filter(step => step.phase === 'result').map(step => step.phase === 'result' && step.result)).toEqual(['FAIL 0', 'FAIL 1', 'FAIL 2', 'FAIL 3\n\nTry something else.'])
    expect(out[7].phase === 'result' && out[7].isError).toBe(true)
    expect(out[6].events[0].context).toMatchObject({ action: 'steer', message: 'Try something else.' })
    expect(await verdicts({ thresholdAction: 'steer' }, times(8, sh('x')))).toEqual([...times(7, '-'), 'abort'])
  })

  it('appends the note to structured results as a text block', async () => {
    const steps: PolicyScriptStep[] = [...oneByOne(times(4, { ...sh('x'), id: 'same' })), { phase: 'result', call: { ...sh('x'), id: 'same' }, result: [{ type: 'text', text: 'out' }] }]
    const { steps: out } = await play({ thresholdAction: 'steer', steeringMessage: 'pivot' }, steps)
    expect(out[4].phase === 'result' && out[4].result).toEqual([{ type: 'text', text: 'out' }, { type: 'text', text: 'pivot' }])
  })

  it('steeringMessage takes a string or a function; blockReason is read when it is unset', async () => {
    const reason = async (config: RepeatGuardConfig) => {
      const { steps } = await play(config, oneByOne(times(4, sh('x'))))
      return steps[3].phase === 'gateBatch' ? (steps[3].decisions[0] as Extract<CallDecision, { type: 'block' }>).reason : ''
    }
    expect(await reason({ steeringMessage: 'Stop.' })).toBe('Stop.')
    expect(await reason({ steeringMessage: (name, count) => `${name} x${count}` })).toBe('shell x4')
    expect(await reason({ blockReason: 'legacy' })).toBe('legacy')
    expect(await reason({ blockReason: 'legacy', steeringMessage: 'new' })).toBe('new')
  })
})

describe('repeat-guard: keys and tools', () => {
  it('the built-in key canonicalizes shell spellings of one command', async () => {
    const spellings = [sh('ls -la src'), sh('cd /repo && ls src'), sh('ls   -l src ; sleep 2'), sh('ls src')]
    expect(await verdicts({}, spellings)).toEqual(['-', '-', '-', 'block'])
    expect((await play({}, oneByOne(spellings))).steps[3].events[0].context).toMatchObject({ key: '$ ls src' })
  })

  it('other tools key on their JSON, whatever the key order', async () => {
    const calls = [other('read_file', { path: 'a', offset: 1 }), other('read_file', { offset: 1, path: 'a' })]
    const { steps } = await play({ blockThreshold: 2 }, oneByOne(calls))
    expect(steps[1].phase === 'gateBatch' && steps[1].decisions[0]?.type).toBe('block')
  })

  it('normalize sets the key; undefined leaves the call untracked (and breaks the chain)', async () => {
    const byPath = (_name: string, input: Record<string, unknown>) => String(input.path)
    expect(await verdicts({ normalize: byPath, blockThreshold: 2 }, [read('a'), { name: 'read_file', input: { path: 'a', limit: 5 } }])).toEqual(['-', 'block'])
    const skipX = (_name: string, input: Record<string, unknown>) => input.command === 'x' ? undefined : String(input.command)
    expect(await verdicts({ normalize: skipX, blockThreshold: 2 }, [sh('x'), sh('x'), sh('y'), sh('x'), sh('y')])).toEqual(['-', '-', '-', '-', '-'])
    expect(await verdicts({ normalize: skipX, blockThreshold: 2 }, [sh('y'), sh('y')])).toEqual(['-', 'block'])
  })

  it('a normalizer that throws falls back to the built-in key', async () => {
    const broken = () => {
      throw new Error('bug')
    }
    expect(await verdicts({ normalize: broken, blockThreshold: 2 }, [sh('x'), sh('x')])).toEqual(['-', 'block'])
  })

  it('tools picks the tracked tools by name or predicate; [] tracks none', async () => {
    const polls = times(4, other('status'))
    expect(await verdicts({}, polls)).toEqual(times(4, '-'))
    expect(await verdicts({ tools: ['status'] }, polls)).toEqual(['-', '-', '-', 'block'])
    expect(await verdicts({ tools: [name => name.startsWith('stat')] }, polls)).toEqual(['-', '-', '-', 'block'])
    expect(await verdicts({ tools: ['status'] }, times(4, sh('x')))).toEqual(times(4, '-'))
    expect(await verdicts({ tools: [] }, times(4, sh('x')))).toEqual(times(4, '-'))
  })
})

describe('repeat-guard: calls an earlier gate refused', () => {
  const refused = (call: ScriptedCall): GateBatchStep => ({ phase: 'gateBatch', calls: [call], blocked: { 0: 'over budget' } })

  it('do not count by default, so the abort is never reached', async () => {
    const { steps, abortReason } = await play({}, times(10, refused(sh('x'))))
    expect(steps.every(step => step.phase === 'gateBatch' && step.decisions[0]?.type === 'block' && step.decisions[0].reason === 'over budget')).toBe(true)
    expect(abortReason).toBeUndefined()
  })

  it('with countBlockedCalls they march toward the abort, and the earlier refusal keeps its reason', async () => {
    const { steps, abortReason } = await play({ countBlockedCalls: true }, times(10, refused(sh('x'))))
    expect(steps.map(step => step.phase === 'gateBatch' && step.decisions[0])).toEqual([
      ...times(7, { type: 'block', reason: 'over budget' }),
      { type: 'abort', reason: 'Repeat guard: shell was called 8 times with the same input' },
    ])
    expect(abortReason).toBeDefined()
    expect(steps.slice(0, 7).every(step => step.events.length === 0)).toBe(true)
  })
})

describe('repeat-guard: the global ceiling', () => {
  it('aborts a chain of exact repeats of any tool at 12, refused attempts included', async () => {
    const result = await play({}, times(13, { phase: 'gateBatch', calls: [other('status', { id: 1 })], blocked: { 0: 'no' } }))
    expect(result.steps).toHaveLength(12)
    expect(result.abortReason).toBe('Repeat guard: status was called 12 times in a row with the same input (global ceiling)')
    expect(result.steps[11].events[0].context).toMatchObject({ counter: 'global', action: 'abort', count: 12, threshold: 12, key: 'status {"id":1}' })
  })

  it('globalCeiling sets the count; 0 or Infinity turns it off; globalCeilingExclude exempts tools', async () => {
    expect((await verdicts({ globalCeiling: 3 }, times(3, other('status')))).at(-1)).toBe('abort')
    for (const globalCeiling of [0, Number.POSITIVE_INFINITY])
      expect(await verdicts({ globalCeiling }, times(20, other('status')))).toEqual(times(20, '-'))
    expect(await verdicts({ globalCeilingExclude: ['status'] }, times(20, other('status')))).toEqual(times(20, '-'))
    expect(await verdicts({ globalCeilingExclude: [name => name === 'status'] }, times(20, other('status')))).toEqual(times(20, '-'))
  })

  it('still applies with tools: [] and counts only exact repeats', async () => {
    expect((await verdicts({ tools: [], globalCeiling: 4 }, times(4, sh('x')))).at(-1)).toBe('abort')
    expect(await verdicts({ globalCeiling: 3 }, [other('s', { a: 1 }), other('s', { a: 2 }), other('s', { a: 1 }), other('s', { a: 2 })])).toEqual(times(4, '-'))
  })
})
