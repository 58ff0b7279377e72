import type { Attributes, Context, Link, Span } from '@opentelemetry/api'
import type { PromptPart } from '../core/content'
import type { RunEffects } from '../core/effects'
import type { AgentStats } from '../core/stats'
import type { AgentHookMap } from '../hooks/hook-map'
import type { ToolSpec } from '../providers/types'
import type { AgentTelemetry } from './options'
import type { TelemetryScope } from './runtime'
import { mergeObjects } from '../core/merge-objects'
import { messagesJson, systemJson, toolDefinitionsJson } from './content'
import { ERROR_TYPE, EVENTS, GEN_AI, OPERATION, ZIDANE } from './conventions'
import { telemetryRuntime } from './runtime'
import { errorType, failSpan } from './span-errors'
import { extractSpanContext, injectCarrier } from './trace-context'
import { recordContent, tracedEffects } from './traced-effects'

/** What a run tells its telemetry when it starts. */
export interface RunTelemetryStart {
  readonly runId: string
  readonly depth: number
  readonly parentRunId?: string
  /** The session's id: `gen_ai.conversation.id`. */
  readonly sessionId?: string
  /** The run's `runAgent` (or its profile's name). */
  readonly runAgent?: { readonly name: string, readonly id?: unknown }
  /** A subagent's label (`child-1`). */
  readonly label?: string
  readonly provider: string
  readonly model: string
  /** The caller's carrier (`AgentRunOptions.tracingContext`). */
  readonly tracingContext?: Readonly<Record<string, string>>
  /** The carrier saved with the run this one continues (`SessionRun.traceContext`). */
  readonly continues?: Readonly<Record<string, string>>
  readonly prompt?: string | readonly PromptPart[]
  readonly effects: RunEffects
  readonly describeTool: (name: string) => string | undefined
}

/** A run's telemetry: its `invoke_agent` span, its traced effects, and what ends them. */
export interface RunTelemetry {
  /** The run's effects with spans around model calls and tool executions. */
  readonly effects: RunEffects
  /** The W3C carrier of the run's span, saved with its record (`SessionRun.traceContext`). */
  readonly carrier: Record<string, string>
  /** Handlers for the run's own events: the carrier a child inherits, retries and fallbacks as span events. */
  readonly hooks: AgentHookMap
  /** The system prompt and tools, once the run has built them (recorded with `recordInputs`). */
  describe: (system: string, tools: readonly ToolSpec[]) => void
  end: (stats: AgentStats) => void
  fail: (error: unknown) => void
}

/** Open a run's `invoke_agent` span, child of the caller's context (or of the run it continues), and trace its effects. */
export async function startRunTelemetry(options: AgentTelemetry, start: RunTelemetryStart): Promise<RunTelemetry> {
  const runtime = await telemetryRuntime(options)
  const { api, tracer } = runtime
  const agentName = options.agentName ?? start.runAgent?.name ?? 'zidane'
  const agentId = options.agentId ?? (typeof start.runAgent?.id === 'string' ? start.runAgent.id : start.label)
  const common: Attributes = { [GEN_AI.agentName]: agentName }
  if (agentId !== undefined)
    common[GEN_AI.agentId] = agentId
  if (start.sessionId !== undefined)
    common[GEN_AI.conversationId] = start.sessionId

  const caller = extractSpanContext(api, start.tracingContext)
  const continued = extractSpanContext(api, start.continues)
  const active = api.context.active()
  // The caller's context wins; a run continued in a new process joins the trace of the run it continues.
  const parent: Context = caller
    ? api.trace.setSpanContext(active, caller)
    : continued && !api.trace.getSpanContext(active)
      ? api.trace.setSpanContext(active, continued)
      : active
  const links: Link[] = continued ? [{ context: continued, attributes: { [ZIDANE.runId]: start.runId } }] : []
  const attributes: Attributes = mergeObjects(common, { [GEN_AI.operationName]: OPERATION.invokeAgent, [GEN_AI.providerName]: start.provider, [GEN_AI.requestModel]: start.model, [ZIDANE.runId]: start.runId, [ZIDANE.depth]: start.depth })
  if (start.parentRunId !== undefined)
    attributes[ZIDANE.parentRunId] = start.parentRunId
  const span = tracer.startSpan(`${OPERATION.invokeAgent} ${agentName}`, { kind: api.SpanKind.INTERNAL, attributes, links }, parent)
  const spanContext = api.trace.setSpan(parent, span)
  const scope: TelemetryScope = { runtime, parent: spanContext, common, agentName, toolSpans: new Map(), metricDimensions: new Map(), describeTool: start.describeTool }
  const maxBytes = runtime.content.maxBytes
  if (runtime.recordInputs && start.prompt !== undefined) {
    const content = typeof start.prompt === 'string' ? [{ type: 'text' as const, text: start.prompt }] : promptBlocks(start.prompt)
    recordContent(scope, span, GEN_AI.inputMessages, OPERATION.invokeAgent, messagesJson([{ role: 'user', content }], maxBytes))
  }

  let ended = false
  return {
    effects: tracedEffects(start.effects, () => scope),
    carrier: injectCarrier(api, spanContext),
    hooks: runHooks(start.runId, scope, span),
    describe(system, tools) {
      if (!runtime.recordInputs)
        return
      recordContent(scope, span, GEN_AI.systemInstructions, OPERATION.invokeAgent, systemJson(system, maxBytes))
      if (tools.length > 0)
        recordContent(scope, span, GEN_AI.toolDefinitions, OPERATION.invokeAgent, toolDefinitionsJson(tools, maxBytes))
    },
    end(stats) {
      if (ended)
        return
      ended = true
      setStatsAttributes(span, stats)
      if (runtime.recordOutputs && stats.text)
        recordContent(scope, span, GEN_AI.outputMessages, OPERATION.invokeAgent, messagesJson([{ role: 'assistant', content: [{ type: 'text', text: stats.text }] }], maxBytes, stats.stopReason))
      span.end()
    },
    fail(error) {
      if (ended)
        return
      ended = true
      failSpan(runtime, span, error)
      span.end()
    },
  }
}

/** The prompt's parts as content blocks (text kept, media by kind). */
function promptBlocks(parts: readonly PromptPart[]) {
  return parts.map(part => part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: 'text' as const, text: `[${part.type}]` })
}

/**
 * The run's own usage: its turns and side calls. A subagent's usage is on the
 * subagent's own `invoke_agent` span (a child of this one), so a backend that
 * sums a trace counts every token once; `stats.totalIn` and the like, which
 * fold the children in, are not used here.
 */
function setStatsAttributes(span: Span, stats: AgentStats): void {
  let input = 0
  let output = 0
  let cacheRead = 0
  let cacheCreation = 0
  let reasoning: number | undefined
  let cost: number | undefined
  for (const usage of [...stats.turnUsage ?? [], ...stats.sideCalls ?? []]) {
    if (usage.cost !== undefined)
      cost = (cost ?? 0) + usage.cost
    input += usage.input
    output += usage.output
    cacheRead += usage.cacheRead ?? 0
    cacheCreation += usage.cacheCreation ?? 0
    if (usage.thinking !== undefined)
      reasoning = (reasoning ?? 0) + usage.thinking
  }
  span.setAttribute(GEN_AI.usageInputTokens, input)
  span.setAttribute(GEN_AI.usageOutputTokens, output)
  span.setAttribute(GEN_AI.usageCacheReadInputTokens, cacheRead)
  span.setAttribute(GEN_AI.usageCacheCreationInputTokens, cacheCreation)
  if (reasoning !== undefined)
    span.setAttribute(GEN_AI.usageReasoningOutputTokens, reasoning)
  span.setAttribute(ZIDANE.turns, stats.turns)
  span.setAttribute(ZIDANE.stopReason, stats.stopReason)
  span.setAttribute(GEN_AI.responseFinishReasons, [stats.stopReason])
  if (cost !== undefined)
    span.setAttribute(ZIDANE.cost, cost)
}

/**
 * The run's events its span listens to: `spawn:before` (the child's carrier:
 * the span of the spawn call, so the child's run hangs under it), and
 * retries and fallbacks as events on the run's span. Events of other runs
 * (a child's, forwarded) are not this run's.
 */
function runHooks(runId: string, scope: TelemetryScope, span: Span): AgentHookMap {
  const { api } = scope.runtime
  return {
    'spawn:before': (ctx) => {
      if (ctx.runId !== runId || !ctx.tracingContext)
        return
      const callSpan = ctx.callId === undefined ? undefined : scope.toolSpans.get(ctx.callId)
      const carrier = injectCarrier(api, callSpan ? api.trace.setSpan(scope.parent, callSpan) : scope.parent)
      Object.assign(ctx.tracingContext, carrier)
    },
    'stream:retry': (ctx) => {
      if (ctx.runId !== runId)
        return
      span.addEvent(EVENTS.retry, { [ZIDANE.turnId]: ctx.turnId, [ZIDANE.attempt]: ctx.attempt, [ZIDANE.retryDelayMs]: ctx.delayMs, [ERROR_TYPE]: errorType(ctx.error) })
    },
    'model:fallback': (ctx) => {
      if (ctx.runId !== runId)
        return
      span.addEvent(EVENTS.fallback, {
        [ZIDANE.fallbackFromProvider]: ctx.from.provider,
        [ZIDANE.fallbackFromModel]: ctx.from.model,
        [ZIDANE.fallbackToProvider]: ctx.to.provider,
        [ZIDANE.fallbackToModel]: ctx.to.model,
        [ERROR_TYPE]: errorType(ctx.error),
      })
    },
  }
}
