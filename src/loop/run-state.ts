import type { PolicyState } from '../core/run-state'
import { AgentPolicyError } from '../errors'
import { describeNonJson } from '../tool-state/json-value'

// The run state's shape, versions and parsing live with the other records (`core/run-state`); the loop adds the policy check.
export { checkRunState, createRunState, parseRunState, RUN_STATE_VERSION, serializeRunState } from '../core/run-state'
export type { RunState } from '../core/run-state'

/** Refuse a policy state JSON would change on the way through (a `Map`, `NaN`, `undefined`, a cycle). */
export function assertPolicyState(policy: string, state: unknown): asserts state is PolicyState {
  const problem = state === undefined ? 'value is undefined' : describeNonJson(state, 'state', new Set())
  if (problem)
    throw new AgentPolicyError(policy, 'state', `Policy "${policy}" has a state that is not plain JSON data: ${problem}`)
}
