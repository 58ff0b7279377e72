import type { Attributes, Context, Span } from '@opentelemetry/api'
import type { SessionMessage } from '../core/content'
import type { ModelCallKind, ModelCallRequest, RunEffects, ToolCallRequest } from '../core/effects'
import type { TurnUsage } from '../core/stats'
import type { DecisionReply } from '../decisions/types'
import type { ToolSpec, TurnResult } from '../providers/types'
import type { RecordedContent } from './content'
import type { MetricDimensions } from './metrics'
import type { TelemetryScope } from './runtime'
import { mergeObjects } from '../core/merge-objects'
import { timerNow } from '../core/timer'
import { messagesJson, redacted, systemJson, toolDefinitionsJson, valueJson } from './content'
import { ERROR_TYPE, GEN_AI, OPERATION, TOKEN_TYPE, ZIDANE } from './conventions'
import { presentAttributes, responseModelDimension } from './metrics'
import { errorType, failSpan } from './span-errors'

/** The effects each traced one wraps. */
const bases = new WeakMap<RunEffects, RunEffects>()

/**
 * The effects with spans: each model call is a `chat <model>` span, each tool
 * execution an `execute_tool <name>` span. The span is opened inside the
 * function handed to the host's effects, so a durable runtime that answers a
 * call from its journal (and never calls it) emits no span for it: a replay
 * does not duplicate what the first execution reported.
 */
export function tracedEffects(base: RunEffects, scope: () => TelemetryScope | Promise<TelemetryScope>): RunEffects {
  const inner = untraced(base)
  // A run's scope is there at once; only a decision outside a run waits for it (the API's first load).
  const traced: RunEffects = mergeObjects<RunEffects, Pick<RunEffects, 'model' | 'tool'>>(inner, { model: (kind, request, exec) => inner.model(kind, request, () => {
    const known = scope()
    return known instanceof Promise ? known.then(ready => tracedModelCall(ready, kind, request, exec)) : tracedModelCall(known, kind, request, exec)
  }), tool: (call, exec) => inner.tool(call, () => {
    const known = scope()
    return known instanceof Promise ? known.then(ready => tracedToolCall(ready, call, exec)) : tracedToolCall(known, call, exec)
  }) })
  bases.set(traced, inner)
  return traced
}

/**
 * The effects under any tracing: a subagent runs on its parent run's effects,
 * and its own telemetry wraps what is under them, so no call gets two spans.
 */
export function untraced(effects: RunEffects): RunEffects {
  return bases.get(effects) ?? effects
}

/** Set a content attribute if the host asked for it, after the cap and the redaction hook. */
export function recordContent(scope: TelemetryScope, span: Span, attribute: string, operation: string, content: RecordedContent, tool?: string): void {
  const text = redacted(content, scope.runtime.content, tool === undefined ? { attribute, operation } : { attribute, operation, tool })
  if (text === undefined)
    return
  span.setAttribute(attribute, text)
  if (content.truncated)
    span.setAttribute(ZIDANE.contentTruncated, true)
}

/** What the conventions read from a model call's body (a stream request or a decision call). */
interface CallBody {
  system?: string
  messages?: readonly SessionMessage[]
  tools?: readonly ToolSpec[]
  maxTokens?: number
}

async function tracedModelCall<T>(scope: TelemetryScope, kind: ModelCallKind, request: ModelCallRequest, exec: () => Promise<T>): Promise<T> {
  const { api, tracer, instruments } = scope.runtime
  const body = request.body as CallBody
  const streamed = kind !== 'decision'
  const attributes: Attributes = mergeObjects(scope.common, { [GEN_AI.operationName]: OPERATION.chat, [GEN_AI.providerName]: request.provider, [GEN_AI.requestModel]: request.model, [GEN_AI.requestStream]: streamed, [ZIDANE.callKind]: kind, [ZIDANE.attempt]: request.attempt, [ZIDANE.turnId]: request.id })
  if (typeof body.maxTokens === 'number')
    attributes[GEN_AI.requestMaxTokens] = body.maxTokens
  if (request.runId !== undefined)
    attributes[ZIDANE.runId] = request.runId
  if (request.purpose !== undefined)
    attributes[ZIDANE.purpose] = request.purpose
  if (kind === 'decision')
    attributes[GEN_AI.outputType] = 'json'
  const span = tracer.startSpan(`${OPERATION.chat} ${request.model}`, { kind: api.SpanKind.CLIENT, attributes }, scope.parent)
  if (scope.runtime.recordInputs)
    recordCallInputs(scope, span, body)
  const startedAt = timerNow()
  let firstChunkAt: number | undefined
  if (streamed) {
    request.onFirstChunk?.(() => {
      firstChunkAt = timerNow()
    })
  }
  let dimensions: MetricDimensions | undefined
  let failure: string | undefined
  try {
    const result = await api.context.with(api.trace.setSpan(scope.parent, span), exec)
    const answer = answerOf(kind, result, scope.runtime.recordOutputs)
    dimensions = metricDimensions(scope, request.provider, request.model, answer.model)
    setAnswerAttributes(span, answer)
    if (firstChunkAt !== undefined) {
      const seconds = (firstChunkAt - startedAt) / 1000
      span.setAttribute(GEN_AI.responseTimeToFirstChunk, seconds)
      instruments.timeToFirstChunk.record(seconds, dimensions.call)
    }
    if (scope.runtime.recordOutputs && answer.output)
      recordContent(scope, span, GEN_AI.outputMessages, OPERATION.chat, messagesJson([{ role: 'assistant', content: answer.output }], scope.runtime.content.maxBytes, answer.finishReason))
    if (answer.usage) {
      instruments.tokenUsage.record(answer.usage.input, dimensions.input)
      instruments.tokenUsage.record(answer.usage.output, dimensions.output)
    }
    return result
  }
  catch (error) {
    failSpan(scope.runtime, span, error)
    failure = errorType(error)
    throw error
  }
  finally {
    const seconds = (timerNow() - startedAt) / 1000
    if (failure === undefined && dimensions)
      instruments.operationDuration.record(seconds, dimensions.call)
    else
      instruments.operationDuration.record(seconds, mergeObjects(dimensions?.call ?? presentAttributes(metricBase(scope, request.provider, request.model)), { [ERROR_TYPE]: failure }))
    span.end()
  }
}

const MAX_METRIC_DIMENSIONS = 16

/**
 * A call's metric attributes, made once per scope for each provider and
 * model pair: a run's calls all share them, and an SDK only reads them.
 */
function metricDimensions(scope: TelemetryScope, provider: string, model: string, responseModel: string | undefined): MetricDimensions {
  const key = `${provider}\n${model}\n${responseModel ?? ''}`
  let dimensions = scope.metricDimensions.get(key)
  if (!dimensions) {
    const call = presentAttributes(mergeObjects(metricBase(scope, provider, model), { [GEN_AI.responseModel]: responseModelDimension(scope.runtime.responseModels, responseModel) }))
    dimensions = {
      call,
      input: mergeObjects(call, { [GEN_AI.tokenType]: TOKEN_TYPE.input }),
      output: mergeObjects(call, { [GEN_AI.tokenType]: TOKEN_TYPE.output }),
    }
    // The response model is the server's word: a scope keeps a few pairs, not one per name a server makes up.
    if (scope.metricDimensions.size < MAX_METRIC_DIMENSIONS)
      scope.metricDimensions.set(key, dimensions)
  }
  return dimensions
}

function metricBase(scope: TelemetryScope, provider: string, model: string): Record<string, string> {
  return {
    [GEN_AI.operationName]: OPERATION.chat,
    [GEN_AI.providerName]: provider,
    [GEN_AI.requestModel]: model,
    [GEN_AI.agentName]: scope.agentName,
  }
}

function recordCallInputs(scope: TelemetryScope, span: Span, body: CallBody): void {
  const maxBytes = scope.runtime.content.maxBytes
  if (typeof body.system === 'string' && body.system.length > 0)
    recordContent(scope, span, GEN_AI.systemInstructions, OPERATION.chat, systemJson(body.system, maxBytes))
  if (Array.isArray(body.messages))
    recordContent(scope, span, GEN_AI.inputMessages, OPERATION.chat, messagesJson(body.messages, maxBytes))
  if (Array.isArray(body.tools) && body.tools.length > 0)
    recordContent(scope, span, GEN_AI.toolDefinitions, OPERATION.chat, toolDefinitionsJson(body.tools, maxBytes))
}

/** What a model call answered, whichever kind it was. */
interface CallAnswer {
  model?: string
  id?: string
  finishReason?: string
  usage?: { input: number, output: number, cacheRead?: number, cacheCreation?: number, reasoning?: number }
  output?: TurnResult['content']
}

function answerOf(kind: ModelCallKind, result: unknown, withOutput: boolean): CallAnswer {
  if (typeof result !== 'object' || result === null)
    return {}
  if (kind === 'decision') {
    const reply = result as Partial<DecisionReply>
    return {
      model: typeof reply.model === 'string' ? reply.model : undefined,
      id: typeof reply.id === 'string' ? reply.id : undefined,
      usage: reply.usage ? { input: reply.usage.input, output: reply.usage.output } : undefined,
      finishReason: 'stop',
      // The answer object is the model's: written out only when outputs are recorded, and by the reader
      // that never throws (a value JSON cannot write must not turn the decision into telemetry's error).
      output: withOutput && reply.body?.type === 'answers' ? [{ type: 'text', text: valueJson(reply.body.value, Number.MAX_SAFE_INTEGER).value }] : undefined,
    }
  }
  const turn = result as Partial<TurnResult> & { responseId?: unknown }
  const usage = turn.usage as TurnUsage | undefined
  return {
    model: usage?.modelId,
    id: typeof turn.responseId === 'string' ? turn.responseId : undefined,
    finishReason: turn.finishReason,
    usage: usage ? { input: usage.input, output: usage.output, cacheRead: usage.cacheRead, cacheCreation: usage.cacheCreation, reasoning: usage.thinking } : undefined,
    output: turn.content,
  }
}

function setAnswerAttributes(span: Span, answer: CallAnswer): void {
  if (answer.model !== undefined)
    span.setAttribute(GEN_AI.responseModel, answer.model)
  if (answer.id !== undefined)
    span.setAttribute(GEN_AI.responseId, answer.id)
  if (answer.finishReason !== undefined)
    span.setAttribute(GEN_AI.responseFinishReasons, [answer.finishReason])
  const usage = answer.usage
  if (!usage)
    return
  span.setAttribute(GEN_AI.usageInputTokens, usage.input)
  span.setAttribute(GEN_AI.usageOutputTokens, usage.output)
  if (usage.cacheRead !== undefined)
    span.setAttribute(GEN_AI.usageCacheReadInputTokens, usage.cacheRead)
  if (usage.cacheCreation !== undefined)
    span.setAttribute(GEN_AI.usageCacheCreationInputTokens, usage.cacheCreation)
  if (usage.reasoning !== undefined)
    span.setAttribute(GEN_AI.usageReasoningOutputTokens, usage.reasoning)
}

async function tracedToolCall<T>(scope: TelemetryScope, call: ToolCallRequest, exec: () => Promise<T>): Promise<T> {
  const { api, tracer } = scope.runtime
  const parentSpan = call.parentToolCallId === undefined ? undefined : scope.toolSpans.get(call.parentToolCallId)
  const parent: Context = parentSpan ? api.trace.setSpan(scope.parent, parentSpan) : scope.parent
  const attributes: Attributes = mergeObjects(scope.common, { [GEN_AI.operationName]: OPERATION.executeTool, [GEN_AI.toolName]: call.name, [GEN_AI.toolCallId]: call.callId, [GEN_AI.toolType]: 'function', [ZIDANE.runId]: call.runId, [ZIDANE.turnId]: call.turnId })
  const description = scope.describeTool?.(call.name)
  if (description)
    attributes[GEN_AI.toolDescription] = description
  if (call.parentToolCallId !== undefined)
    attributes[ZIDANE.parentToolCallId] = call.parentToolCallId
  const span = tracer.startSpan(`${OPERATION.executeTool} ${call.name}`, { kind: api.SpanKind.INTERNAL, attributes }, parent)
  const maxBytes = scope.runtime.content.maxBytes
  if (scope.runtime.recordInputs)
    recordContent(scope, span, GEN_AI.toolCallArguments, OPERATION.executeTool, valueJson(call.input, maxBytes), call.name)
  scope.toolSpans.set(call.callId, span)
  try {
    const output = await api.context.with(api.trace.setSpan(parent, span), exec)
    if (scope.runtime.recordOutputs)
      recordContent(scope, span, GEN_AI.toolCallResult, OPERATION.executeTool, valueJson(output, maxBytes), call.name)
    return output
  }
  catch (error) {
    failSpan(scope.runtime, span, error)
    throw error
  }
  finally {
    scope.toolSpans.delete(call.callId)
    span.end()
  }
}
