import type { AgentHookBus } from '../hooks/bus'
import type { AgentOptions, AgentRunOptions } from './options'
import type { AgentStats } from './stats'
import { AgentAbortedError, AgentBusyError } from '../errors'
import { createHookBus, registerHookMap } from '../hooks/bus'
import { createToolRegistry } from '../tools/registry'
import { executeRun } from './run'

/** An agent: a provider, tools and behavior, run one conversation at a time. */
export interface Agent {
  /** The hook bus; register handlers with `agent.hooks.hook(name, handler)`. */
  readonly hooks: AgentHookBus
  /** Whether a run is in progress. */
  readonly running: boolean
  /** Run the loop until the model is done, a limit is hit, or the run is aborted. */
  run: (options?: AgentRunOptions) => Promise<AgentStats>
  /** Abort the run in progress: the stream and tools in flight stop, and the run returns `'aborted'`. */
  abort: (reason?: unknown) => void
  /** Abort any run and refuse new ones. */
  destroy: () => Promise<void>
}

/**
 * Create an agent. Configuration mistakes (duplicate tool names, colliding
 * aliases, unknown hook names) throw here, not in the middle of a run.
 */
export function createAgent(options: AgentOptions): Agent {
  if (!options?.provider || typeof options.provider.stream !== 'function')
    throw new TypeError('createAgent() needs a provider')
  createToolRegistry(options.tools, options.toolAliases)

  const hooks = createHookBus()
  registerHookMap(hooks, options.hooks)
  let current: AbortController | undefined
  let destroyed = false

  return {
    hooks,
    get running() {
      return current !== undefined
    },
    async run(runOptions = {}) {
      if (destroyed)
        throw new AgentAbortedError('This agent was destroyed')
      if (current)
        throw new AgentBusyError()
      const controller = new AbortController()
      current = controller
      try {
        return await executeRun(options, hooks, controller, runOptions)
      }
      finally {
        current = undefined
      }
    },
    abort(reason) {
      current?.abort(reason ?? new AgentAbortedError())
    },
    async destroy() {
      destroyed = true
      current?.abort(new AgentAbortedError('The agent was destroyed'))
    },
  }
}
