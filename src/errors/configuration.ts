/**
 * An agent that cannot be set up as configured: a bad behavior knob, a bad
 * policy list, a missing optional peer dependency.
 */

/**
 * A behavior knob holds a value zidane cannot act on: the wrong type, out of
 * range, or an option that does not exist. Thrown by `createAgent()` for the
 * agent's `behavior` and by `run()` for the run's merged behavior, before
 * anything starts, so a typo in a limit never runs unbounded.
 */
export class AgentBehaviorError extends TypeError {
  override name = 'AgentBehaviorError'
  /** The knob's path, e.g. `retry.maxAttempts`. */
  readonly knob: string
  /** The value that was set. */
  readonly value: unknown
  /** What the knob accepts. */
  readonly expected: string
  /** Which call found it. */
  readonly where: 'createAgent' | 'run'
  constructor(knob: string, value: unknown, expected: string, where: 'createAgent' | 'run') {
    super(`${where === 'run' ? 'agent.run()' : 'createAgent()'}: behavior${knob === '' ? '' : `.${knob}`} must be ${expected}, got ${describeValue(value)}`)
    this.knob = knob
    this.value = value
    this.expected = expected
    this.where = where
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value)
  if (typeof value === 'function')
    return 'a function'
  if (Array.isArray(value))
    return 'an array'
  if (value === null)
    return 'null'
  if (typeof value === 'object')
    return 'an object'
  return String(value)
}

/** What is wrong with a policy list (`AgentPolicyError.problem`). */
export type AgentPolicyProblem = 'invalid' | 'duplicate' | 'unknown-after' | 'cycle' | 'state'

/**
 * A policy `createAgent` (or a run) cannot use: no name or a phase that is not
 * a function, a duplicate name, an `after` naming no policy of the agent, an
 * ordering cycle, or a state that is not plain JSON data.
 */
export class AgentPolicyError extends TypeError {
  override name = 'AgentPolicyError'
  /** The policy at fault (the first one met, for a cycle). */
  readonly policy: string
  readonly problem: AgentPolicyProblem
  constructor(policy: string, problem: AgentPolicyProblem, message: string) {
    super(message)
    this.policy = policy
    this.problem = problem
  }
}

/** An optional peer dependency that a zidane entry needs is not installed. */
export class MissingPeerDependencyError extends Error {
  override name = 'MissingPeerDependencyError'
  /** The npm package that is missing, e.g. `better-sqlite3`. */
  readonly packageName: string
  /** The entry that needs it, e.g. `zidane/session/sqlite`. */
  readonly feature: string
  /** What to run to fix it. */
  readonly installCommand: string
  constructor(packageName: string, feature: string, options: { cause?: unknown } = {}) {
    const installCommand = `npm install ${packageName}`
    super(`${feature} needs the optional peer dependency "${packageName}", which is not installed. Install it with: ${installCommand}`, { cause: options.cause })
    this.packageName = packageName
    this.feature = feature
    this.installCommand = installCommand
  }
}
