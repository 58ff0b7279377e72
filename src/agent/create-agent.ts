import type { TaskStallInfo } from '../contexts/types'
import type { PromptPart } from '../core/content'
import type { AgentStats, SchemaOutput } from '../core/stats'
import type { AgentDecide } from '../decisions/types'
import type { AgentHookBus } from '../hooks/bus'
import type { AgentBehavior, OutputSchema } from '../knobs/behavior'
import type { RunContext } from '../loop/run-context'
import type { Session } from '../session/session'
import type { AgentToolState } from '../tool-state/types'
import type { AgentApprovals } from './approvals'
import type { ContextBreakdown } from './context-breakdown'
import type { AgentOptions, AgentRunOptions, QueuedMessageOptions } from './options'
import type { RunEnvironment } from './run'
import type { SteeringQueues } from './steering'
import type { AgentStream, AgentStreamOptions } from './stream'
import { createProcessContext } from '../contexts/process'
import { resolveClock, resolveEffects } from '../core/effects'
import { withGetters } from '../core/fast-accessors'
import { mergeObjects } from '../core/merge-objects'
import { withTimeout } from '../core/timeout'
import { debugLog } from '../debug'
import { AgentAbortedError, AgentBusyError } from '../errors'
import { createHookBus, fireHook, registerHookMap } from '../hooks/bus'
import { BEHAVIOR_DEFAULTS, validateBehavior } from '../knobs/behavior'
import { SKILLS_EVENTS, skillsPolicy } from '../policies/skills/policy'
import { loadBundledModels } from '../providers/catalog/bundled'
import { preloadProvider } from '../providers/preload'
import { createSkillSet } from '../skills/skill-set'
import { validateTelemetry } from '../telemetry/validate'
import { createToolStateController } from '../tool-state/controller'
import { createToolRegistry } from '../tools/registry'
import { agentApprovals } from './approvals'
import { attachContextDecide, createDecisionEngine } from './decide'
import { createMcpLoader } from './mcp-loader'
import { MessageQueue } from './message-queue'
import { idleBreakdown, liveBreakdown } from './next-request'
import { providerList } from './plan'
import { agentPolicies, executeRun } from './run'
import { isUnfinished, lastTopLevelRun } from './run-state-record'
import { agentEffects } from './run-tracing'
import { loadAgentSkills } from './skills-loader'
import { streamRun } from './stream'

/** Run options whose `behavior.schema` types the run's `stats.output`. */
export type RunOptionsWithSchema<Options, Schema extends OutputSchema> = Options & { behavior: AgentBehavior & { schema: Schema } }

/**
 * An agent: a provider, tools and behavior, run one conversation at a time.
 * `Output` types `stats.output` of its runs: the output type of the zod
 * `behavior.schema` given to `createAgent`, `unknown` without one.
 */
export interface Agent<Output = unknown> extends AgentApprovals {
  /** The hook bus; register handlers with `agent.hooks.hook(name, handler)`. */
  readonly hooks: AgentHookBus
  /** Whether a run is in progress. */
  readonly running: boolean
  /**
   * What the agent's tools have committed to their state. Read-only: state
   * changes only from inside a tool, so every write has a tool result it
   * belongs to. Subagents get their own.
   */
  readonly toolState: AgentToolState
  /** The session runs record into, when the agent has one. */
  readonly session?: Session
  /**
   * Add a user message at the next turn boundary of the current run (or at the
   * start of the next run when none is going). It keeps the run going.
   */
  steer: (prompt: string | PromptPart[], options?: QueuedMessageOptions) => void
  /** Add a user message when the current (or next) run would otherwise end. */
  followUp: (prompt: string | PromptPart[], options?: QueuedMessageOptions) => void
  /**
   * Run the loop until the model is done, a limit is hit, or the run is
   * aborted. A run's own `behavior.schema` types that run's `stats.output`.
   */
  run: {
    <Schema extends OutputSchema>(options: RunOptionsWithSchema<AgentRunOptions, Schema>): Promise<AgentStats<SchemaOutput<Schema>>>
    (options?: AgentRunOptions): Promise<AgentStats<Output>>
  }
  /**
   * Run like `run()`, and read the run as typed events with `for await`; the
   * stats are on `stream.result`. Breaking out of the loop aborts the run.
   */
  stream: {
    <Schema extends OutputSchema>(options: RunOptionsWithSchema<AgentStreamOptions, Schema>): AgentStream<SchemaOutput<Schema>>
    (options?: AgentStreamOptions): AgentStream<Output>
  }
  /**
   * Ask a model typed questions about some evidence, in one short structured
   * call (see `DecisionRequest`). Never throws unless `{ throw: true }`;
   * `agent.decide.available` says whether a provider can take decisions now.
   * Hooks get the same function as `ctx.decide`, bound to the run.
   */
  readonly decide: AgentDecide
  /** Abort the run in progress: the stream and tools in flight stop, and the run returns `'aborted'`. */
  abort: (reason?: unknown) => void
  /**
   * Stop the run in progress at its next turn boundary (after the model call
   * in flight and its tool results are recorded): it returns `stopReason:
   * 'suspended'` with `stats.suspended` (and `stats.suspendReason`), its run
   * state saved with its record. `agent.resume()` continues it, in this
   * process or another. Returns whether a run was in progress.
   */
  suspend: (reason?: string) => boolean
  /**
   * Continue the session's last top-level run from its saved run state: one
   * that was suspended, paused, or cut off by a crash (still `running` in its
   * record). Works from another process too, with a new agent on the same
   * session. Throws a `TypeError` without a session or with nothing to resume.
   */
  resume: (options?: AgentResumeOptions) => Promise<AgentStats<Output>>
  /**
   * Abort any run, close the MCP servers, tear down the execution context
   * (bounded by `destroyTimeoutMs`), and refuse new runs. A program does not
   * need it to exit: between runs the agent's stdio and streamable-HTTP MCP
   * servers do not keep Node's event loop alive (an SSE server's stream does;
   * see docs/mcp.md). Call it to release everything at a known point.
   */
  destroy: () => Promise<void>
  /** `destroy()`, so `await using agent = createAgent(...)` destroys the agent when the block ends. */
  [Symbol.asyncDispose]: () => Promise<void>
  /**
   * Bytes and estimated tokens of the next request: system prompt, tools, and
   * each kind of message content, as the wire pipeline would send it (without
   * the host's `context:transform`). During a run, that run's next request;
   * between runs, the request a run continuing the session would start with.
   */
  getContextBreakdown: () => ContextBreakdown
}

/** What `agent.resume()` takes: a run's options, without a prompt (the run continues where it stopped). */
export type AgentResumeOptions = Omit<AgentRunOptions, 'prompt' | 'resumeRunId'>

/** Agents created in this process: numbers each one's key in a shared MCP pool (a pool lives in one process). */
let agentsCreated = 0

/**
 * Create an agent. Configuration mistakes (duplicate tool names, colliding
 * aliases, unknown hook names, invalid behavior knobs, a bad policy list)
 * throw here, not in the middle of a run.
 */
export function createAgent<Schema extends OutputSchema | undefined = undefined>(options: AgentOptions & { behavior?: AgentBehavior & { schema?: Schema } }): Agent<SchemaOutput<Schema>> {
  const providers = options?.provider ? providerList(options.provider) : []
  if (providers.length === 0 || providers.some(provider => typeof provider?.stream !== 'function'))
    throw new TypeError('createAgent() needs a provider (or a non-empty list of providers)')
  createToolRegistry(options.tools, options.toolAliases)
  validateBehavior(options.behavior, 'createAgent')

  const queues: SteeringQueues = { steering: new MessageQueue(), followUp: new MessageQueue(), notices: new MessageQueue() }
  // Checked and ordered once: a bad policy list fails here, not in a run.
  // Inline skills are checked now (`SkillValidationError`); directories are read before the first run.
  const skills = options.skills === undefined ? undefined : createSkillSet(options.skills)
  const policies = agentPolicies(queues, options.policies, skills ? [skillsPolicy(skills)] : [])
  // The bus knows the events its policies fire, so hook maps may name them.
  // The skills events are known even without skills, so a host registers its handlers whatever it configures.
  const hooks = createHookBus([...policies.flatMap(policy => policy.events ?? []), ...SKILLS_EVENTS])
  registerHookMap(hooks, options.hooks)
  const toolState = createToolStateController(options.toolState)
  const execution = options.execution ?? createProcessContext()
  // What the agent does outside a run (`agent.decide`) uses the agent's clock and effects.
  const clock = resolveClock(options.clock, options.effects)
  validateTelemetry(options.telemetry)
  // Decisions outside a run are traced too: their span hangs under whatever context is active when they are made.
  const effects = agentEffects(resolveEffects(options.effects, options.clock), options.telemetry)
  const mcp = createMcpLoader({ options, hooks, execution, fallbackPoolKey: `agent-${++agentsCreated}` })
  // The bundled model data is not on the import path: start loading it now,
  // so it is there for the first run (which awaits it) and, very likely, for
  // a context breakdown asked for before any run. A failure surfaces there.
  const catalog = loadBundledModels()
  catalog.catch(() => {})
  // Then the provider's SDK, if the process is still busy by then, so the
  // first model call does not wait for it (only the first provider's: a
  // fallback loads its own if it is ever used).
  preloadProvider(providers[0], catalog)
  // A stalled background task may outlive the run that started it: hosts hear
  // of it at once, and the model at its next turn (in this run or the next).
  const onBackgroundStall = (info: TaskStallInfo) => {
    fireHook(hooks, 'background:stall', info)
    queues.notices.push({ content: [{ type: 'text', text: stallNotice(info), origin: 'injected' }], injected: 'background-stall' })
  }
  let current: AbortController | undefined
  let suspender: AbortController | undefined
  let live: RunContext | undefined
  let destroyed = false
  const decisions = createDecisionEngine({
    providers,
    options: options.decisions,
    hooks,
    clock,
    effects,
    catalogs: { agent: options.behavior?.modelCatalog },
    hookTimeoutMs: options.behavior?.hookTimeoutMs,
  })
  // The run in progress binds `ctx.decide` to itself; between runs hooks get the agent's.
  let runDecide: AgentDecide | undefined
  attachContextDecide(hooks, () => runDecide ?? decisions.decide)
  const bindDecisions: RunEnvironment['bindDecisions'] = (binding) => {
    const bound = decisions.bind(binding)
    runDecide = bound
    return () => {
      if (runDecide === bound)
        runDecide = undefined
    }
  }

  const approvals = agentApprovals({ session: options.session, clock, live: () => live, running: () => current !== undefined })

  // `hooks` first: a literal that begins with a spread is slow to build on Node 20 (see core/merge-objects.ts).
  const agent: Agent<SchemaOutput<Schema>> = withGetters<Agent<SchemaOutput<Schema>>, 'running'>({
    hooks,
    ...approvals,
    decide: decisions.decide,
    session: options.session,
    toolState: toolState.committed,
    steer(prompt, messageOptions = {}) {
      queues.steering.push({ prompt, ...messageOptions })
    },
    followUp(prompt, messageOptions = {}) {
      queues.followUp.push({ prompt, ...messageOptions })
    },
    // One implementation behind both signatures: `stats.output` is whatever
    // passed the run's schema, which is the type the signature names.
    run: async (runOptions: AgentRunOptions = {}): Promise<AgentStats<any>> => {
      if (destroyed)
        throw new AgentAbortedError('This agent was destroyed')
      if (current)
        throw new AgentBusyError()
      const controller = new AbortController()
      current = controller
      suspender = new AbortController()
      // MCP server processes keep the program alive only while a run is in flight.
      mcp.holdEventLoop(true)
      try {
        await loadBundledModels()
        if (skills)
          await loadAgentSkills(skills, hooks, options.behavior?.hookTimeoutMs)
        return await executeRun({ agent: options, hooks, controller, queues, toolState, execution, mcp, onBackgroundStall, policies, bindDecisions, suspendSignal: suspender.signal, onRunContext: (run) => {
          live = run
        } }, runOptions)
      }
      finally {
        current = undefined
        suspender = undefined
        live = undefined
        mcp.holdEventLoop(false)
      }
    },
    stream: (streamOptions?: AgentStreamOptions): AgentStream<any> => streamRun(agent.run, streamOptions),
    getContextBreakdown: () => live ? liveBreakdown(live) : idleBreakdown(options, policies, execution),
    abort(reason) {
      current?.abort(reason ?? new AgentAbortedError())
    },
    suspend(reason) {
      if (!suspender)
        return false
      suspender.abort(reason)
      return true
    },
    async resume(resumeOptions = {}) {
      const session = options.session
      if (!session)
        throw new TypeError('agent.resume() needs an agent with a session')
      const last = lastTopLevelRun(session.runs)
      if (!last || !isUnfinished(last))
        throw new TypeError(`Session "${session.id}" has no suspended, paused or unfinished run to resume`)
      return agent.run(mergeObjects(resumeOptions, { prompt: undefined, resumeRunId: undefined }))
    },
    async destroy() {
      destroyed = true
      current?.abort(new AgentAbortedError('The agent was destroyed'))
      // A context whose teardown never settles must not strand the host: abandon it after the bound.
      const limit = options.behavior?.destroyTimeoutMs ?? BEHAVIOR_DEFAULTS.destroyTimeoutMs
      await mcp.close(limit)
      await withTimeout(execution.destroy(), limit, 'execution context destroy').catch(error => debugLog('execution context teardown', error))
    },
    [Symbol.asyncDispose]: () => agent.destroy(),
  }, { running: () => current !== undefined })
  return agent
}

function stallNotice(info: TaskStallInfo): string {
  const seconds = Math.round(info.silentMs / 1000)
  return `Background task ${info.taskId} (\`${info.command}\`) has printed nothing for ${seconds}s. `
    + `It may be waiting for input. Check its log (${info.logPath}) and kill it with kill_task if it is stuck.`
}
