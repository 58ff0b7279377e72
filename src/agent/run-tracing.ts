import type { RunEffects } from '../core/effects'
import type { ModelTarget } from '../providers/model-targets'
import type { AgentTelemetry } from '../telemetry/options'
import type { RunTelemetry } from '../telemetry/run-telemetry'
import type { ToolRegistry } from '../tools/registry'
import type { AgentOptions, AgentRunOptions } from './options'
import { mergeObjects } from '../core/merge-objects'
import { recordToContinue } from './run-state-record'

/** What a run knows when its telemetry starts. */
export interface RunTracingFacts {
  readonly runId: string
  readonly effects: RunEffects
  readonly target: ModelTarget
  readonly tools: ToolRegistry
}

type RunTelemetryModule = typeof import('../telemetry/run-telemetry')

/** zidane's tracing code, imported once: a dynamic import per run costs a module resolution every run. */
let runTelemetryModule: Promise<RunTelemetryModule> | undefined

function loadRunTelemetry(): Promise<RunTelemetryModule> {
  runTelemetryModule ??= import('../telemetry/run-telemetry').catch((error: unknown) => {
    runTelemetryModule = undefined
    throw error
  })
  return runTelemetryModule
}

/**
 * The run's telemetry when the agent has `telemetry` (else `undefined`, and
 * nothing of OpenTelemetry is loaded): its span is a child of the caller's
 * `tracingContext`, and joins the trace of the run it continues.
 */
export async function traceRun(agent: AgentOptions, options: AgentRunOptions, facts: RunTracingFacts): Promise<RunTelemetry | undefined> {
  if (!agent.telemetry)
    return undefined
  // zidane's telemetry code, like OpenTelemetry itself, loads only for an agent that has telemetry.
  const { startRunTelemetry } = await loadRunTelemetry()
  const session = agent.session
  const runAgent = options.runAgent ?? (options.profile ? { name: options.profile.name } : undefined)
  return startRunTelemetry(agent.telemetry, {
    runId: facts.runId,
    depth: options.depth ?? 0,
    parentRunId: options.parentRunId,
    sessionId: session?.id,
    runAgent,
    label: options.runLabel,
    provider: facts.target.provider.name,
    model: facts.target.model,
    tracingContext: options.tracingContext,
    continues: session ? recordToContinue(session, options)?.traceContext : undefined,
    prompt: options.prompt,
    effects: facts.effects,
    describeTool: name => facts.tools.get(name)?.spec.description,
  })
}

/**
 * The agent's effects for what it does outside a run (`agent.decide`): with
 * telemetry, each model call is traced, the tracing code loaded on the first.
 */
export function agentEffects(effects: RunEffects, telemetry: AgentTelemetry | undefined): RunEffects {
  if (!telemetry)
    return effects
  let traced: Promise<RunEffects> | undefined
  const load = () => traced ??= Promise.all([import('../telemetry/traced-effects'), import('../telemetry/agent-scope')])
    .then(([{ tracedEffects }, { decisionScope }]) => tracedEffects(effects, () => decisionScope(telemetry)))
  return mergeObjects<RunEffects, Pick<RunEffects, 'model'>>(effects, { model: async (kind, request, exec) => (await load()).model(kind, request, exec) })
}
