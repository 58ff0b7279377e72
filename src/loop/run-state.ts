import type { PolicyState } from '../policies/policy'
import { AgentPolicyError } from '../errors'
import { describeNonJson } from '../tool-state/json-value'

/**
 * The serializable part of a run: what its policies carry from one phase to
 * the next, keyed by policy name. Plain JSON only, so a pause that resumes, a
 * durable journal or a test can write it out and read it back.
 */
export interface RunState {
  readonly policies: Record<string, PolicyState>
}

/** A run state with these policies' states. */
export function createRunState(policies: Record<string, PolicyState> = {}): RunState {
  return { policies }
}

/** Refuse a policy state JSON would change on the way through (a `Map`, `NaN`, `undefined`, a cycle). */
export function assertPolicyState(policy: string, state: unknown): asserts state is PolicyState {
  const problem = state === undefined ? 'value is undefined' : describeNonJson(state, 'state', new Set())
  if (problem)
    throw new AgentPolicyError(policy, 'state', `Policy "${policy}" has a state that is not plain JSON data: ${problem}`)
}

/** The run state as JSON text. */
export function serializeRunState(state: RunState): string {
  for (const [name, value] of Object.entries(state.policies))
    assertPolicyState(name, value)
  return JSON.stringify(state)
}

/** A run state read back from `serializeRunState`'s text. */
export function parseRunState(json: string): RunState {
  const parsed = JSON.parse(json) as { policies?: unknown }
  if (typeof parsed !== 'object' || parsed === null || typeof parsed.policies !== 'object' || parsed.policies === null || Array.isArray(parsed.policies))
    throw new TypeError('A run state is a JSON object with a "policies" object')
  return { policies: parsed.policies as Record<string, PolicyState> }
}
