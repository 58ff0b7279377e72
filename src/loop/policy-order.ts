import type { BehaviorPolicy } from '../policies/policy'
import { AgentPolicyError } from '../errors'

/** The phases of a policy, in the order the runner lists them. */
export const POLICY_PHASES = ['request', 'prompt', 'gateBatch', 'gateCall', 'result', 'afterTurn', 'providerError', 'runEnd'] as const

/** The members a policy may have that must be functions when present; one list, not one per policy checked. */
const FUNCTION_MEMBERS = [...POLICY_PHASES, 'enabled', 'initialState', 'wireStages', 'tools', 'sections', 'hooks'] as const

/**
 * Check a policy list and put it in run order: each policy after the ones its
 * `after` names, otherwise in list order. Throws `AgentPolicyError` for a
 * policy without a name or with a phase that is not a function, a duplicate
 * name, an `after` naming no policy in the list, and a cycle.
 */
export function orderPolicies(policies: readonly BehaviorPolicy[]): BehaviorPolicy[] {
  const byName = new Map<string, number>()
  policies.forEach((policy, index) => {
    checkShape(policy, index)
    if (byName.has(policy.name))
      throw new AgentPolicyError(policy.name, 'duplicate', `Two policies are named "${policy.name}"; policy names must be unique`)
    byName.set(policy.name, index)
  })
  const waitingOn = policies.map(() => 0)
  const dependents: number[][] = policies.map(() => [])
  let inListOrder = true
  policies.forEach((policy, index) => {
    for (const name of policy.after ?? []) {
      const before = byName.get(name)
      if (before === undefined)
        throw new AgentPolicyError(policy.name, 'unknown-after', `Policy "${policy.name}" runs after "${name}", but the agent has no policy of that name`)
      waitingOn[index] += 1
      dependents[before].push(index)
      // A later policy, or itself (a cycle of one): the sort decides, or finds the cycle.
      if (before >= index)
        inListOrder = false
    }
  })
  // Every `after` names an earlier policy (or none is given, the usual case):
  // the list order is the run order, which is what the sort below would find
  // (scanning the list once per policy placed, on every agent created).
  if (inListOrder)
    return [...policies]
  // Kahn's algorithm, always taking the earliest ready policy in list order: with no `after`, the order is the list's.
  const ordered: BehaviorPolicy[] = []
  const done = policies.map(() => false)
  while (ordered.length < policies.length) {
    const next = waitingOn.findIndex((count, index) => count === 0 && !done[index])
    if (next === -1) {
      const stuck = policies.filter((_, index) => !done[index]).map(policy => policy.name)
      throw new AgentPolicyError(stuck[0], 'cycle', `Policies ${stuck.map(name => `"${name}"`).join(', ')} wait on each other through \`after\`; the order has a cycle`)
    }
    done[next] = true
    ordered.push(policies[next])
    for (const dependent of dependents[next]) waitingOn[dependent] -= 1
  }
  return ordered
}

/**
 * Frozen policies already found well-formed: a frozen object (with frozen
 * `after` and `events` lists) cannot change, so it is checked once, not on
 * every agent made with it (the built-ins are frozen; checking all of them
 * took a tenth of a millisecond per agent).
 */
const wellFormed = new WeakSet<BehaviorPolicy>()

function checkShape(policy: BehaviorPolicy, index: number): void {
  if (wellFormed.has(policy))
    return
  checkMembers(policy, index)
  if (Object.isFrozen(policy) && isFrozenOrAbsent(policy.after) && isFrozenOrAbsent(policy.events))
    wellFormed.add(policy)
}

function checkMembers(policy: BehaviorPolicy, index: number): void {
  if (typeof policy !== 'object' || policy === null || typeof policy.name !== 'string' || policy.name === '')
    throw new AgentPolicyError(`#${index}`, 'invalid', `Policy #${index} has no name; every policy needs a non-empty string name`)
  if (policy.after !== undefined && (!Array.isArray(policy.after) || policy.after.some(name => typeof name !== 'string')))
    throw new AgentPolicyError(policy.name, 'invalid', `Policy "${policy.name}": \`after\` must be a list of policy names`)
  if (policy.events !== undefined && (!Array.isArray(policy.events) || policy.events.some(name => typeof name !== 'string' || name === '' || name.startsWith('child:'))))
    throw new AgentPolicyError(policy.name, 'invalid', `Policy "${policy.name}": \`events\` must be a list of event names (no \`child:\` re-emissions)`)
  for (const key of FUNCTION_MEMBERS) {
    if (policy[key] !== undefined && typeof policy[key] !== 'function')
      throw new AgentPolicyError(policy.name, 'invalid', `Policy "${policy.name}": \`${key}\` must be a function`)
  }
}

function isFrozenOrAbsent(list: readonly string[] | undefined): boolean {
  return list === undefined || Object.isFrozen(list)
}
