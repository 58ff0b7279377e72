import type { Attributes } from '@opentelemetry/api'
import type { AgentTelemetry } from './options'
import type { TelemetryScope } from './runtime'
import { GEN_AI } from './conventions'
import { telemetryRuntime } from './runtime'

/**
 * Where an `agent.decide` made outside any run hangs its `chat` span: under
 * the context active when it is made (the caller's span, with a context
 * manager), with the agent's name.
 */
export async function decisionScope(options: AgentTelemetry): Promise<TelemetryScope> {
  const runtime = await telemetryRuntime(options)
  const agentName = options.agentName ?? 'zidane'
  const common: Attributes = { [GEN_AI.agentName]: agentName }
  if (options.agentId !== undefined)
    common[GEN_AI.agentId] = options.agentId
  return { runtime, parent: runtime.api.context.active(), common, agentName, toolSpans: new Map(), metricDimensions: new Map() }
}
