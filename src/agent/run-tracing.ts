import type { RunEffects } from '../core/effects'
import type { ModelTarget } from '../providers/model-targets'
import type { RunTelemetry } from '../telemetry/run-telemetry'
import type { ToolRegistry } from '../tools/registry'
import type { AgentOptions, AgentRunOptions } from './options'
import { startRunTelemetry } from '../telemetry/run-telemetry'
import { recordToContinue } from './run-state-record'

/** What a run knows when its telemetry starts. */
export interface RunTracingFacts {
  readonly runId: string
  readonly effects: RunEffects
  readonly target: ModelTarget
  readonly tools: ToolRegistry
}

/**
 * The run's telemetry when the agent has `telemetry` (else `undefined`, and
 * nothing of OpenTelemetry is loaded): its span is a child of the caller's
 * `tracingContext`, and joins the trace of the run it continues.
 */
export async function traceRun(agent: AgentOptions, options: AgentRunOptions, facts: RunTracingFacts): Promise<RunTelemetry | undefined> {
  if (!agent.telemetry)
    return undefined
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
