import type { AgentBehavior } from '../../../src'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../../src'
import { AgentBehaviorError } from '../../../src/errors'
import { BEHAVIOR_DEFAULTS, KNOBS, validateBehavior } from '../../../src/knobs/behavior'
import { scriptedProvider } from '../../../src/testing'

const NAMES = Object.keys(KNOBS)
/** No knob accepts a symbol, whatever its type. */
const BAD = Symbol('bad')

function errorOf(run: () => unknown): AgentBehaviorError {
  try {
    run()
  }
  catch (error) {
    expect(error).toBeInstanceOf(AgentBehaviorError)
    expect(error).toBeInstanceOf(TypeError)
    return error as AgentBehaviorError
  }
  throw new Error('expected an AgentBehaviorError')
}

describe('invalid knob values', () => {
  it.each(NAMES)('createAgent names %s when it holds a value of no accepted type', (name) => {
    const error = errorOf(() => createAgent({ provider: scriptedProvider([]), behavior: { [name]: BAD } as AgentBehavior }))
    expect(error).toMatchObject({ knob: name, value: BAD, where: 'createAgent' })
    expect(error.message).toContain(`createAgent(): behavior.${name} must be`)
  })

  it.each(NAMES)('run() names %s, merged over a valid agent behavior, before the provider is called', async (name) => {
    const provider = scriptedProvider([{ text: 'never' }])
    const agent = createAgent({ provider, behavior: { maxTurns: 5 } })
    const error = await agent.run({ prompt: 'go', behavior: { [name]: BAD } as AgentBehavior }).catch(e => e)
    expect(error).toBeInstanceOf(AgentBehaviorError)
    expect(error).toMatchObject({ knob: name, where: 'run' })
    expect(provider.requests).toHaveLength(0)
    // The agent is still usable: the next run with a valid behavior goes through.
    provider.push({ text: 'fine' })
    expect((await agent.run({ prompt: 'go' })).text).toBe('never')
  })

  it.each<[AgentBehavior, string, string]>([
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts', 'a whole number >= 1'],
    [{ retry: { maxDelayMs: -5 } }, 'retry.maxDelayMs', 'a finite number >= 0'],
    [{ cacheTtl: '10m' as never }, 'cacheTtl', '\'5m\' or \'1h\''],
    [{ toolDisclosure: 'sometimes' as never }, 'toolDisclosure', '\'eager\' or \'lazy\''],
    [{ toolSearch: { mode: 'bogus' as never } }, 'toolSearch.mode', '\'dispatch\' or \'unlock\''],
    [{ toolSearch: { limit: 0 } }, 'toolSearch.limit', 'a whole number >= 1'],
    [{ maxTurnsWarningMessage: 42 as never }, 'maxTurnsWarningMessage', 'a string, or a function'],
    [{ readFileDefaults: { limit: 0 } }, 'readFileDefaults.limit', 'a whole number >= 1'],
    [{ maxTurns: -1 }, 'maxTurns', 'a whole number >= 0 (or Infinity)'],
    [{ maxTurns: 2.5 }, 'maxTurns', 'a whole number >= 0 (or Infinity)'],
    [{ maxTokens: 0 }, 'maxTokens', 'a finite number > 0'],
    [{ writeFileExistingPolicy: { mode: 'nope' as never } }, 'writeFileExistingPolicy.mode', '\'allow\' or \'block-with-edit-recipe\''],
    [{ writeFileExistingPolicy: { denyPaths: 'src/**' as never } }, 'writeFileExistingPolicy.denyPaths', 'an array of strings'],
    // A glob that does not compile would never match: as a deny entry it would let every write through.
    [{ writeFileExistingPolicy: { denyPaths: ['src/{a,b'] } }, 'writeFileExistingPolicy.denyPaths', 'an array of valid globs'],
    [{ writeFileExistingPolicy: { allowPaths: ['x'.repeat(5000)] } }, 'writeFileExistingPolicy.allowPaths', 'an array of valid globs'],
    [{ disableBackgroundTasks: 'always' as never }, 'disableBackgroundTasks', 'a boolean, or \'non-durable\''],
    [{ fetchUrlAllowHosts: 'example.com' as never }, 'fetchUrlAllowHosts', 'an array of strings'],
    [{ maxCostUsd: '5' as never }, 'maxCostUsd', 'a number (0 or less turns it off)'],
  ])('%j: names %s and what it accepts', (behavior, knob, expected) => {
    const error = errorOf(() => validateBehavior(behavior, 'createAgent'))
    expect(error.knob).toBe(knob)
    expect(error.expected).toBe(expected)
    expect(error.message).toContain(`behavior.${knob} must be ${expected}, got `)
  })

  it('a non-object behavior is refused as a whole', () => {
    expect(errorOf(() => validateBehavior(7 as never, 'run')).message).toBe('agent.run(): behavior must be an object, got 7')
  })
})

describe('values the contract allows', () => {
  it.each<AgentBehavior>([
    // "0 disables", and negatives / NaN are ignored, for the limits and watchdogs.
    { maxCostUsd: 0, maxTotalTokens: -1, maxWallMs: Number.NaN },
    { providerStreamStartTimeoutMs: 0, providerStreamTimeoutMs: 0, providerStreamIdleTimeoutMs: 0, hookTimeoutMs: 0 },
    { spawnTimeoutMs: 0, destroyTimeoutMs: 0, mcpConnectTimeoutMs: 0, shellLongTimeoutMs: -1, fetchUrlCacheTtlMs: 0 },
    { maxConsecutivePauseTurns: 0, maxConsecutiveLengthResumes: 0, maxConsecutiveRefusalResumes: 0, maxPairingRepairsPerTurn: 0 },
    { maxTurnsWarning: 0, maxTurns: 0 },
    { maxTurns: Number.POSITIVE_INFINITY },
    // Values below 1 (and NaN) run tools one at a time.
    { maxConcurrentTools: 0 },
    { maxConcurrentTools: Number.NaN },
    { retry: { maxAttempts: 1, initialDelayMs: 0, maxDelayMs: 0 } },
    { maxTurnsWarningMessage: ({ remaining }) => `${remaining} left` },
    { disableBackgroundTasks: 'non-durable', writeFileExistingPolicy: { allowPaths: ['docs/**'] } },
    { fetchUrlAllowHosts: [], extensions: { anything: [1, 2] }, modelOptions: {} },
    // Unset keys, and keys zidane does not know (ignored, as hosts pass their own under `extensions`).
    { maxTurns: undefined, retry: undefined },
    { someFutureKnob: true } as AgentBehavior,
    { retry: { maxAttempts: 2, jitter: 'none' } as AgentBehavior['retry'] },
  ])('%j passes', (behavior) => {
    expect(() => validateBehavior(behavior, 'createAgent')).not.toThrow()
  })

  it('every declared default passes its own knob\'s check', () => {
    expect(() => validateBehavior(BEHAVIOR_DEFAULTS as AgentBehavior, 'createAgent')).not.toThrow()
  })

  it('any value of any knob either passes or is refused with an AgentBehaviorError naming that knob', () => {
    fc.assert(fc.property(fc.constantFrom(...NAMES), fc.anything({ withBoxedValues: true, withMap: true, withSet: true }), (name, value) => {
      try {
        validateBehavior({ [name]: value } as AgentBehavior, 'run')
      }
      catch (error) {
        expect(error).toBeInstanceOf(AgentBehaviorError)
        expect((error as AgentBehaviorError).knob.split('.')[0]).toBe(name)
      }
    }), { numRuns: 2000 })
  })
})
