import type { ExecutionContext, TaskStallInfo } from '../contexts/types'
import type { SessionContentBlock } from '../core/content'
import type { AgentStats } from '../core/stats'
import type { DecisionRecord } from '../decisions/types'
import type { AgentHookBus } from '../hooks/bus'
import type { AgentHookMap, AgentHookName } from '../hooks/hook-map'
import type { RunContext } from '../loop/run-context'
import type { BehaviorPolicy } from '../policies/policy'
import type { FrozenPromptSections } from '../session/system-freeze'
import type { SessionEndStatus } from '../session/types'
import type { RunTelemetry } from '../telemetry/run-telemetry'
import type { ToolStateController } from '../tool-state/types'
import type { DecisionBinding } from './decide'
import type { McpLoader } from './mcp-loader'
import type { AgentOptions, AgentRunOptions } from './options'
import type { SteeringQueues } from './steering'
import { setMaxListeners } from 'node:events'
import { resolveClock, resolveEffects } from '../core/effects'
import { mergeObjects } from '../core/merge-objects'
import { withTimeout } from '../core/timeout'
import { timerNow } from '../core/timer'
import { durableEffects } from '../durable/effects'
import { AgentAbortedError, AgentBudgetExceededError, SessionLeaseError } from '../errors'
import { callHookBounded, fireHook, hasHookHandlers, registerHookMap } from '../hooks/bus'
import { BEHAVIOR_DEFAULTS, boundByWall } from '../knobs/behavior'
import { SESSION_DEFAULTS } from '../knobs/session-knobs'
import { ApprovalDesk } from '../loop/approval-desk'
import { completeForPolicy, emitForPolicy } from '../loop/complete'
import { endPolicies } from '../loop/policy-run-end'
import { adjustPrompt, NO_PHASES, orderPolicies, PhaseInterruptedError } from '../loop/policy-runner'
import { withStateViews } from '../loop/run-context'
import { persistNewTurns, persistSettledTurns, runLoop } from '../loop/run-loop'
import { hookTimeout, runIds } from '../loop/stream-turn'
import { startHardDeadline, startWallDeadline, untilWall, wallThatEnded } from '../loop/wall-deadline'
import { BUILT_IN_POLICIES } from '../policies'
import { runOriginProblem } from '../session/stores/record-checks'
import { holdUnsavedWork } from '../session/unsaved-work'
import { sessionAtStart } from './durable-start'
import { activatePlan, planBehavior, planRun, providerList } from './plan'
import { isBlankPrompt, promptContent } from './prompt-content'
import { finishRecord, openRunRecord } from './run-record'
import { legStartOf, runCheckpoint, savedState, seedReadState, startState, stateToContinue } from './run-state-record'
import { buildStats } from './run-stats'
import { traceRun } from './run-tracing'
import { seedTurns } from './seed-turns'
import { holdRunLease } from './session-lease'
import { onAbort } from './signal-fanout'
import { queuePolicies, seedQueuedMessages } from './steering'
import { subagentHost } from './subagent-host'

/** What an agent hands each of its runs. */
export interface RunEnvironment {
  agent: AgentOptions
  hooks: AgentHookBus
  controller: AbortController
  queues: SteeringQueues
  toolState: ToolStateController
  execution: ExecutionContext
  /** The agent's MCP servers, connected on first use. */
  mcp?: McpLoader
  /** The agent's handler for stalled background tasks (they may outlive the run that started them). */
  onBackgroundStall: (info: TaskStallInfo) => void
  /** The agent's policies in run order (`agentPolicies`); default: the built-ins and the queue policies. */
  policies?: readonly BehaviorPolicy[]
  /** Bind `ctx.decide` to this run until the returned function is called. */
  bindDecisions?: (binding: DecisionBinding) => () => void
  /** Told the run's context once its policies are active (so `agent.getContextBreakdown()` can read the live run). */
  onRunContext?: (run: RunContext) => void
  /** `agent.suspend()`: stops the run at its next turn boundary (`stopReason: 'suspended'`). */
  suspendSignal?: AbortSignal
}

/**
 * Every policy of an agent, checked and in run order: the built-ins, the
 * host's, then the agent's queues (stall notices, steering), each moved after
 * the ones its `after` names. Throws `AgentPolicyError` for a bad list.
 */
export function agentPolicies(queues: SteeringQueues, host: readonly BehaviorPolicy[] = [], own: readonly BehaviorPolicy[] = []): BehaviorPolicy[] {
  // The agent's own policies (its skills) come first: their gate refuses before any budget counts the call.
  return orderPolicies([...own, ...BUILT_IN_POLICIES, ...host, ...queuePolicies(queues)])
}

/**
 * One `agent.run()` from start to finish: resolve options, seed the
 * conversation (from the session when there is one), activate the policies,
 * attach per-run hooks, run the loop, record the run, and always detach what was
 * attached, whichever way the run ends.
 */
export async function executeRun(env: RunEnvironment, runOptions: AgentRunOptions): Promise<AgentStats> {
  const session = env.agent.session
  // A replay engine keeps one writer per session itself (Restate: one invocation per key at a time),
  // and a replay after a crash must not wait for the dead worker's lease to expire.
  if (!session || env.agent.durable?.mode === 'replay')
    return runOnce(env, runOptions)
  // One writer per session: the lease is held before the session's turns are
  // read, and until the run's last record is written.
  const lease = await holdRunLease(session, {
    renewMs: runOptions.leaseRenewMs ?? env.agent.durable?.leaseRenewMs,
    depth: runOptions.depth ?? 0,
    onLost: error => env.controller.abort(error),
    signals: [env.controller.signal, runOptions.signal],
  })
  try {
    return await runOnce(env, runOptions)
  }
  finally {
    await lease.end()
  }
}

async function runOnce(env: RunEnvironment, runOptions: AgentRunOptions): Promise<AgentStats> {
  // The run starts now, before MCP servers connect: `elapsed`, time to first
  // token and the wall-clock bounds (`maxWallMs`, `hardWallMs`) all count from
  // here; the first two on the effects' time, the bounds' timers in real time.
  const durable = env.agent.durable
  const hostEffects = runOptions.effects ?? (durable ? durableEffects(durable) : env.agent.effects)
  const effects = resolveEffects(hostEffects, runOptions.clock ?? env.agent.clock)
  const startedAtMs = effects.now()
  const wallStartedAtMs = timerNow()
  // A blank prompt is no prompt: the run continues the session, or is refused when there is nothing to continue.
  const options = runOptions.prompt !== undefined && isBlankPrompt(runOptions.prompt) ? mergeObjects(runOptions, { prompt: undefined }) : runOptions
  const { agent, hooks, controller } = env
  const session = agent.session
  const originProblem = options.runOrigin === undefined ? undefined : runOriginProblem(options.runOrigin)
  if (originProblem)
    throw new TypeError(`runOrigin ${originProblem.slice('has an origin '.length)}`)
  // A replay starts from the session as its first execution found it (a crash may have stored more since).
  const start = session && durable?.mode === 'replay' ? await sessionAtStart(session, effects) : undefined
  const seed = seedTurns(env, options, start)
  const behavior = planBehavior(agent, options)
  // On a replay runtime the journal's time and ids are the run's, whatever clock was given.
  const clock = durable?.mode === 'replay' && !runOptions.effects ? resolveClock(undefined, hostEffects) : resolveClock(options.clock ?? agent.clock, hostEffects)
  const startedAt = await clock.now()

  // Everything attached below is detached in `finally`, in reverse order,
  // whichever way the run ends (a bad per-run hook name included).
  const detachers: (() => void)[] = []
  let tracing: RunTelemetry | undefined
  try {
    const signal = options.signal
    if (signal) {
      const forwardAbort = () => controller.abort(signal.reason ?? new AgentAbortedError())
      if (signal.aborted)
        forwardAbort()
      else
        detachers.push(onAbort(signal, forwardAbort))
    }
    // The run's own signal: tools, SDKs and subagents all listen on it, and it never outlives the run.
    setMaxListeners(0, controller.signal)
    const wall = startWallDeadline(behavior, wallStartedAtMs, error => controller.abort(error))
    if (wall)
      detachers.push(wall.clear)
    const hardWall = startHardDeadline(behavior, wallStartedAtMs, error => controller.abort(error))
    if (hardWall)
      detachers.push(hardWall.clear)

    const bounds = { signal: controller.signal, wall, hardWall }
    const mcp = await untilWall(env.mcp ? env.mcp.load(behavior) : Promise.resolve(undefined), bounds)
    const plan = planRun({ agent, run: options, mcp, history: seed, policies: env.policies ?? agentPolicies(env.queues), execution: env.execution })
    const { aliases, toolSet, tools, catalogs, targets, sections, system: freshSystem } = plan

    // A continuation picks the run up where its last leg left it; anything else starts fresh.
    const continued = session ? stateToContinue(session, options, start?.runs) : undefined
    const state = startState(continued, targets)
    if (session)
      seedReadState(session, start?.runs)
    const runId = clock.randomUUID()
    tracing = await traceRun(agent, options, { runId, effects, target: targets[state.target.index], tools })
    const runEffects = tracing?.effects ?? effects
    const run: RunContext = withStateViews({
      runId,
      depth: options.depth ?? 0,
      parentRunId: options.parentRunId,
      parentCallId: options.parentCallId,
      hooks,
      behavior,
      catalogs,
      targets,
      // The data fields are views over `state`, the run as data, added by `withStateViews` (see RunContext).
      legStart: legStartOf(state),
      system: await resolveSystem(options, freshSystem, sections),
      thinking: options.thinking ?? 'off',
      modelOptions: options.modelOptions ?? behavior.modelOptions,
      tools,
      toolState: env.toolState,
      execution: env.execution,
      resolveContentRef: agent.resolveContentRef,
      onBackgroundStall: env.onBackgroundStall,
      clock,
      effects: runEffects,
      signal: controller.signal,
      abort: reason => controller.abort(reason ?? new AgentAbortedError()),
      turns: [...seed],
      session,
      persistedCount: seed.length,
      pauseSignal: options.pauseSignal,
      suspendSignal: (options.depth ?? 0) === 0 ? env.suspendSignal : undefined,
      durableMode: durable?.mode,
      storedTurnIds: start?.laterTurnIds,
      subagents: subagentHost(hooks, state.children, session, {
        providers: providerList(agent.provider),
        model: options.model,
        tools: toolSet,
        toolAliases: aliases,
        thinking: options.thinking ?? 'off',
        telemetry: agent.telemetry,
        ...(durable ? { durable } : {}),
      }, start?.runs),
      startedAt,
      startedAtMs,
      wall,
      hardWall,
      policyPhases: NO_PHASES,
      state,
      wireStages: [],
      sentStages: [],
      complete: request => completeForPolicy(run, request),
      emit: (event, context) => emitForPolicy(run, event, context),
      needsApproval: agent.needsApproval,
      approvals: new ApprovalDesk(),
      // Set later in the run; present from the start so the run keeps one shape throughout.
      checkpoint: undefined,
      firstSignalAtMs: undefined,
      wireMemo: undefined,
      lastRequest: undefined,
      lastRequestTurns: undefined,
      contentRefs: undefined,
    })

    // Each policy says once, here, whether it takes part in this run; the
    // phases of those that do are listed, their states seeded on the run state.
    const activated = activatePlan(plan, run, continued?.policies)
    state.policies = activated.policies
    Object.assign(run, { policyPhases: activated.phases, wireStages: activated.wireStages, sentStages: activated.sentStages })
    env.onRunContext?.(run)
    tracing?.describe(run.system, tools.specs)
    if (tracing)
      detachers.push(registerHookMap(hooks, tracing.hooks))
    seedQueuedMessages(run, env.queues)
    for (const policy of activated.withHooks)
      detachers.push(registerHookMap(hooks, policy.hooks!(behavior, (name, ctx) => fireHook(hooks, name as AgentHookName, ctx as never), name => hasHookHandlers(hooks, name as AgentHookName)) as AgentHookMap))
    // Decisions the run's hooks make are bound to it and recorded on its `SessionRun`.
    const decisions: DecisionRecord[] = []
    if (env.bindDecisions)
      detachers.push(env.bindDecisions({ runId: run.runId, signal: controller.signal, effects: runEffects, record: entry => decisions.push(entry) }))
    detachers.push(registerHookMap(hooks, options.hooks))
    // `session.save()` stores what this run holds back (`persistTurns: false`) while it lives.
    if (session)
      detachers.push(holdUnsavedWork(session, () => persistSettledTurns(run)))

    // Tool state loads before any tool can run; a failed load is retried by the next run.
    await untilWall(env.toolState.hydrate(), run)
    if (tools.names.length > 0)
      await untilWall(spawnExecution(run), run)
    const stats = await driveRun(run, options, freshSystem, sections, decisions, tracing?.carrier)
    tracing?.end(stats)
    return stats
  }
  catch (error) {
    tracing?.fail(error)
    throw error
  }
  finally {
    for (const detach of detachers.reverse()) detach()
  }
}

/**
 * Start the execution context before the first model call, so a context that
 * cannot start (a hung container daemon) fails the run at once with
 * `OperationTimeoutError` instead of at the first tool call. Bounded by
 * `spawnTimeoutMs`, and by `maxWallMs` when that is lower.
 */
async function spawnExecution(run: RunContext): Promise<void> {
  const limit = boundByWall(run.behavior.spawnTimeoutMs ?? BEHAVIOR_DEFAULTS.spawnTimeoutMs, run.behavior)
  await withTimeout(run.execution.spawn({ signal: run.signal }), limit, 'execution context spawn')
}

/** Fire the lifecycle hooks around the loop, record the run, and turn its outcome into stats. */
async function driveRun(run: RunContext, options: AgentRunOptions, freshSystem: string, sections: FrozenPromptSections, decisions: readonly DecisionRecord[], traceContext: Record<string, string> | undefined): Promise<AgentStats> {
  const lifecycle = { timeoutMs: hookTimeout(run), failClosed: false }
  const session = run.session
  const record = openRunRecord(run, options, traceContext)
  try {
    if (session) {
      await session.saveRun(mergeObjects(record, { state: savedState(run) }))
      // At each turn boundary the record is saved again with the state (with `persistTurns: false` the turns are not stored then either).
      if (run.behavior.persistTurns ?? SESSION_DEFAULTS.persistTurns)
        Object.assign(run, { checkpoint: runCheckpoint(run, record, session) })
      await callHookBounded(run.hooks, 'session:start', mergeObjects(runIds(run), { sessionId: session.id }), lifecycle)
    }
    await callHookBounded(run.hooks, 'agent:start', mergeObjects(runIds(run), { provider: run.provider.name, model: run.model, prompt: options.prompt, tracingContext: options.tracingContext, metadata: options.metadata }), lifecycle)
    let promptCut = false
    if (options.prompt !== undefined) {
      const content = promptContent(options.prompt, [...freezeNotes(options, freshSystem, sections), ...options.systemNotes ?? []])
      const adjusted = run.policyPhases.prompt.length > 0 ? await promptPhase(run, content) : content
      if (adjusted) {
        run.turns.push({
          id: run.clock.randomUUID(),
          role: 'user',
          content: adjusted,
          createdAt: await run.clock.now(),
          runId: run.runId,
        })
        // The prompt is stored before the model is called, whatever `persistTurns` says.
        await persistNewTurns(run)
      }
      promptCut = adjusted === undefined
    }

    const stopReason = promptCut ? 'aborted' : endsWithAnswer(run) ? 'completed' : await runLoop(run)
    // A wall-clock bound ended the run: that is a budget failure, not a cancel.
    const outOfTime = stopReason === 'aborted' ? wallThatEnded(run) : undefined
    if (outOfTime?.error)
      throw outOfTime.error
    // Another writer took the session over: this run stops, and says why.
    if (stopReason === 'aborted' && run.signal.reason instanceof SessionLeaseError)
      throw run.signal.reason
    await persistNewTurns(run)
    const stats = buildStats(run, stopReason)
    await finishRecord(run, record, stopReason === 'aborted' ? 'aborted' : 'completed', stats, stopReason, undefined, decisions)
    await endPolicies(run, stopReason)
    if (stopReason === 'aborted')
      await callHookBounded(run.hooks, 'agent:abort', mergeObjects(runIds(run), { reason: run.signal.reason }), lifecycle)
    await callHookBounded(run.hooks, 'agent:done', mergeObjects(runIds(run), { stats, stopReason }), lifecycle)
    return stats
  }
  catch (error) {
    // Keep what the run did: its recorded turns are paired (tool results are
    // recorded before any policy can throw), so they are safe to store.
    await persistNewTurns(run).catch(() => {})
    const status: SessionEndStatus = error instanceof AgentBudgetExceededError ? 'aborted' : 'error'
    await finishRecord(run, record, status, buildStats(run, 'aborted'), undefined, error, decisions).catch(() => {})
    await endPolicies(run, undefined, error)
    await callHookBounded(run.hooks, 'agent:error', mergeObjects(runIds(run), { error }), lifecycle).catch(() => {})
    throw error
  }
}

/**
 * A continuation with nothing to continue: the conversation already ends with
 * an answer (no prompt, nothing queued). The run returns at once.
 */
function endsWithAnswer(run: RunContext): boolean {
  if (run.pending.length > 0)
    return false
  for (let i = run.turns.length - 1; i >= 0; i--) {
    const turn = run.turns[i]
    if (turn.role === 'user')
      return false
    if (turn.role === 'assistant' && !turn.aborted && turn.content.length > 0)
      return !turn.content.some(block => block.type === 'tool_call')
  }
  return false
}

/**
 * The prompt through the policies' prompt phase; `undefined` when the phase
 * was cut (the run was aborted or ran out of time before the policies
 * accepted it), in which case the prompt is not recorded.
 */
async function promptPhase(run: RunContext, content: SessionContentBlock[]): Promise<SessionContentBlock[] | undefined> {
  try {
    return await adjustPrompt(run, 'prompt', content)
  }
  catch (error) {
    if (error instanceof PhaseInterruptedError)
      return undefined
    throw error
  }
}

/**
 * The system prompt to send: the frozen one when `systemFreeze.system` is set,
 * else the fresh one (handed to `onCapture` so the host can freeze it).
 */
async function resolveSystem(options: AgentRunOptions, fresh: string, sections: FrozenPromptSections): Promise<string> {
  const freeze = options.systemFreeze
  if (freeze?.system !== undefined)
    return freeze.system
  await freeze?.onCapture?.(fresh, sections)
  return fresh
}

/** With a frozen prompt, the host's notes about what changed since it was frozen. */
function freezeNotes(options: AgentRunOptions, fresh: string, sections: FrozenPromptSections) {
  const freeze = options.systemFreeze
  if (freeze?.system === undefined || !freeze.notes)
    return []
  return freeze.notes(fresh, sections)
}
