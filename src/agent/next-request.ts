import type { ExecutionContext } from '../contexts/types'
import type { SessionTurn } from '../core/content'
import type { RunContext } from '../loop/run-context'
import type { BehaviorPolicy } from '../policies/policy'
import type { ContextBreakdown } from './context-breakdown'
import type { AgentOptions } from './options'
import { resolveClock, resolveEffects } from '../core/effects'
import { servingContextWindow } from '../loop/run-context'
import { nextStageContext, previewMessages } from '../loop/wire-pipeline'
import { measureContext } from './context-breakdown'
import { activatePlan, planRun } from './plan'
import { resumableTurns } from './seed-turns'

/**
 * The breakdown of a running run's next request: its system prompt and
 * tools, its turns plus the messages waiting to join the next user turn,
 * through its own wire stages.
 */
export function liveBreakdown(run: RunContext): ContextBreakdown {
  const pending = run.pending.flatMap(part => part.content)
  const turns: readonly SessionTurn[] = pending.length === 0
    ? run.turns
    : [...run.turns, { id: 'pending', role: 'user', content: pending, createdAt: 0 }]
  const messages = previewMessages({ turns, wireStages: run.wireStages, ctx: nextStageContext(run) })
  return measureContext({ system: run.system, tools: run.tools.specs, messages, contextWindow: run.contextWindow })
}

/**
 * The breakdown of the request a run with no options of its own would start
 * with: planned as that run plans it (the agent's system prompt and its
 * sections, the agent's and the policies' tools, the first model), with the
 * session's turns through the stages of the agent's policies. MCP tools are
 * left out (their servers connect when a run starts).
 */
export function idleBreakdown(options: AgentOptions, policies: readonly BehaviorPolicy[], execution: ExecutionContext): ContextBreakdown {
  const turns = options.session ? resumableTurns(options.session.turns) : []
  const plan = planRun({ agent: options, history: turns, policies, execution })
  const { behavior, tools, targets } = plan
  const { provider, model } = targets[0]
  const contextWindow = servingContextWindow({ behavior, targets, targetIndex: 0 })
  const view = {
    runId: 'context-breakdown',
    clock: resolveClock(options.clock, options.effects),
    effects: resolveEffects(options.effects, options.clock),
    // No run, nothing to cancel: a signal that never aborts.
    signal: new AbortController().signal,
    turnCount: 0,
    usage: [],
    sideCalls: [],
    children: [],
    startedAt: 0,
    session: options.session,
    execution,
    model,
    contextWindow,
    thinking: 'off' as const,
    provider,
    tools,
    turns,
    // Nothing runs while a breakdown is measured: no model call to make, no host to tell.
    complete: async () => {
      throw new Error('getContextBreakdown: no run is active, so a policy cannot call the model')
    },
    emit: async () => {},
  }
  const { wireStages } = activatePlan(plan, view)
  const messages = previewMessages({ turns, wireStages, ctx: { turn: 1, providerName: provider.name, model, toolWireName: tools.toWire } })
  return measureContext({ system: plan.system, tools: tools.specs, messages, contextWindow })
}
