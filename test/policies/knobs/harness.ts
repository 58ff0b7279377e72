import type { AgentBehavior, AgentOptions, AgentRunOptions, AgentStats } from '../../../src'
import type { KnobMeta, KnobSlice } from '../../../src/knobs/define'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../../src'

/**
 * One knob's scenario: a run through the public API whose outcome (a small,
 * stable projection such as a stop reason or a request field) is `unset` when
 * the knob is left alone and `set` when it holds `value`. When the knob has a
 * default, the run with the default written out must give `unset` too, which
 * checks the slice's default against what the code does.
 */
export interface KnobScenario {
  value: unknown
  outcome: (behavior: AgentBehavior) => Promise<unknown>
  unset: unknown
  set: unknown
  /** Scenarios for the fields of an object knob (`retry.maxAttempts`, …), each run with only that field set. */
  fields?: Record<string, Omit<KnobScenario, 'fields' | 'outcome'> & { outcome?: KnobScenario['outcome'] }>
}

/** A scenario for every key of a slice: the compiler already refuses a missing one. */
export type SliceScenarios<K> = { readonly [P in keyof Required<K>]: KnobScenario }

/** Run a scripted agent and report how it ended: the stop reason, or the error's name. */
export async function endOf(options: AgentOptions, run: AgentRunOptions = { prompt: 'go' }): Promise<string> {
  const agent = createAgent(options)
  try {
    const stats: AgentStats = await agent.run(run)
    return stats.stopReason
  }
  catch (error) {
    return (error as Error).name
  }
  finally {
    await agent.destroy()
  }
}

async function check(name: string, meta: KnobMeta, scenario: Omit<KnobScenario, 'fields'>, wrap: (value: unknown) => AgentBehavior): Promise<void> {
  const unset = await scenario.outcome({})
  expect(unset, `${name} unset`).toEqual(scenario.unset)
  const set = await scenario.outcome(wrap(scenario.value))
  expect(set, `${name} = ${String(scenario.value)}`).toEqual(scenario.set)
  expect(set, `${name}: setting it must change the outcome`).not.toEqual(unset)
  if (meta.default !== undefined)
    expect(await scenario.outcome(wrap(meta.default)), `${name} at its declared default`).toEqual(unset)
}

/** Register one test per knob (and per field of an object knob) of a slice. */
export function runSliceScenarios<K>(slice: KnobSlice<K>, scenarios: SliceScenarios<K>, timeoutMs = 20_000): void {
  describe(`knob slice: ${slice.name}`, () => {
    for (const [name, meta] of Object.entries(slice.knobs) as [keyof K & string, KnobMeta][]) {
      const scenario = scenarios[name]
      it(`${name}: the outcome leaves the default when the knob is set`, () => check(name, meta, scenario, value => ({ [name]: value }) as AgentBehavior), timeoutMs)
      for (const [field, fieldMeta] of Object.entries(meta.fields?.knobs ?? {})) {
        const fieldScenario = scenario.fields?.[field]
        it(`${name}.${field}: the outcome leaves the default when the field is set`, () => {
          expect(fieldScenario, `${name}.${field} has no scenario`).toBeDefined()
          return check(`${name}.${field}`, fieldMeta, { outcome: scenario.outcome, ...fieldScenario! }, value => ({ [name]: { [field]: value } }) as AgentBehavior)
        }, timeoutMs)
      }
    }
  })
}
