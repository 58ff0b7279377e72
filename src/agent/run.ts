import type { BehaviorPolicy, PolicyContext } from '../behavior/policy'
import type { AgentHookBus } from '../hooks/bus'
import type { PromptPart, SessionContentBlock, SessionTurn } from '../session/content'
import type { AgentOptions, AgentRunOptions } from './options'
import type { RunContext } from './run-context'
import type { AgentStats } from './stats'
import type { StopReason } from './stop-reason'
import { BUILT_IN_POLICIES } from '../behavior'
import { AgentAbortedError } from '../errors'
import { callHookBounded, registerHookMap } from '../hooks/bus'
import { runLoop } from '../loop/run-loop'
import { hookTimeout, runIds } from '../loop/stream-turn'
import { createToolRegistry } from '../tools/registry'
import { resolveBehavior } from './behavior'
import { DEFAULT_AGENT_CLOCK } from './clock'
import { DEFAULT_SYSTEM_PROMPT } from './options'

/**
 * One `agent.run()` from start to finish: resolve options, attach per-run
 * hooks and policies, run the loop, build the stats, and always detach what
 * was attached, whichever way the run ends.
 */
export async function executeRun(
  agent: AgentOptions,
  hooks: AgentHookBus,
  controller: AbortController,
  options: AgentRunOptions,
  policies: readonly BehaviorPolicy[] = BUILT_IN_POLICIES,
): Promise<AgentStats> {
  if (options.prompt === undefined)
    throw new TypeError('agent.run() needs a prompt')

  const behavior = resolveBehavior(agent.behavior, options.behavior)
  const clock = options.clock ?? agent.clock ?? DEFAULT_AGENT_CLOCK
  const tools = createToolRegistry(options.tools ?? agent.tools, agent.toolAliases)

  // Everything attached below is detached in `finally`, in reverse order,
  // whichever way the run ends (a bad per-run hook name included).
  const detachers: (() => void)[] = []
  try {
    const signal = options.signal
    if (signal) {
      const forwardAbort = () => controller.abort(signal.reason ?? new AgentAbortedError())
      if (signal.aborted)
        forwardAbort()
      signal.addEventListener('abort', forwardAbort, { once: true })
      detachers.push(() => signal.removeEventListener('abort', forwardAbort))
    }

    const run: RunContext = {
      runId: clock.randomUUID(),
      depth: options.depth ?? 0,
      parentRunId: options.parentRunId,
      parentCallId: options.parentCallId,
      hooks,
      behavior,
      provider: agent.provider,
      model: options.model ?? agent.provider.meta.defaultModel,
      system: options.system ?? agent.system ?? DEFAULT_SYSTEM_PROMPT,
      thinking: options.thinking ?? 'off',
      modelOptions: options.modelOptions ?? behavior.modelOptions,
      tools,
      clock,
      signal: controller.signal,
      abort: reason => controller.abort(reason ?? new AgentAbortedError()),
      turns: [],
      turnCount: 0,
      usage: [],
      startedAt: await clock.now(),
      startedAtMs: Date.now(),
      pending: [],
    }

    // Handler order on each event: the agent's own hooks, then the policies, then this run's hooks.
    for (const policy of policies) {
      const detach = policy.attach(policyContext(run))
      if (detach)
        detachers.push(detach)
    }
    detachers.push(registerHookMap(hooks, options.hooks))

    return await driveRun(run, options)
  }
  finally {
    for (const detach of detachers.reverse()) detach()
  }
}

/** Fire the lifecycle hooks around the loop and turn its outcome into stats. */
async function driveRun(run: RunContext, options: AgentRunOptions): Promise<AgentStats> {
  const lifecycle = { timeoutMs: hookTimeout(run), failClosed: false }
  try {
    await callHookBounded(run.hooks, 'agent:start', {
      ...runIds(run),
      provider: run.provider.name,
      model: run.model,
      prompt: options.prompt,
      tracingContext: options.tracingContext,
      metadata: options.metadata,
    }, lifecycle)
    run.turns.push(await promptTurn(run, options.prompt!))

    const stopReason = await runLoop(run)
    const stats = buildStats(run, stopReason)
    if (stopReason === 'aborted')
      await callHookBounded(run.hooks, 'agent:abort', { ...runIds(run), reason: run.signal.reason }, lifecycle)
    await callHookBounded(run.hooks, 'agent:done', { ...runIds(run), stats, stopReason }, lifecycle)
    return stats
  }
  catch (error) {
    await callHookBounded(run.hooks, 'agent:error', { ...runIds(run), error }, lifecycle).catch(() => {})
    throw error
  }
}

function policyContext(run: RunContext): PolicyContext {
  return {
    hooks: run.hooks,
    behavior: run.behavior,
    run,
    inject: (text, reason) => run.pending.push({ text, reason }),
    continueWith: (text, reason) => {
      run.continuation = { text, reason }
    },
    stop: (reason) => {
      run.stopRequest ??= reason
    },
    abort: run.abort,
  }
}

async function promptTurn(run: RunContext, prompt: string | PromptPart[]): Promise<SessionTurn> {
  const content: SessionContentBlock[] = typeof prompt === 'string'
    ? [{ type: 'text', text: prompt }]
    : prompt.map(part => ({ ...part }) as SessionContentBlock)
  return { id: run.clock.randomUUID(), role: 'user', content, createdAt: await run.clock.now(), runId: run.runId }
}

function buildStats(run: RunContext, stopReason: StopReason): AgentStats {
  let totalIn = 0
  let totalOut = 0
  let totalCacheRead = 0
  let totalCacheCreation = 0
  let cost = 0
  for (const usage of run.usage) {
    totalIn += usage.input
    totalOut += usage.output
    totalCacheRead += usage.cacheRead ?? 0
    totalCacheCreation += usage.cacheCreation ?? 0
    cost += usage.cost ?? 0
  }
  const stats: AgentStats = {
    turns: run.turnCount,
    totalIn,
    totalOut,
    totalCacheRead,
    totalCacheCreation,
    elapsed: Date.now() - run.startedAtMs,
    turnUsage: [...run.usage],
    text: finalText(run.turns),
    stopReason,
  }
  if (cost > 0)
    stats.cost = cost
  if (run.firstSignalAtMs !== undefined)
    stats.timeTillFirstTokenMs = run.firstSignalAtMs - run.startedAtMs
  return stats
}

/** Text of the last assistant turn. */
function finalText(turns: readonly SessionTurn[]): string {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]
    if (turn.role === 'assistant')
      return turn.content.map(block => block.type === 'text' ? block.text : '').join('')
  }
  return ''
}
