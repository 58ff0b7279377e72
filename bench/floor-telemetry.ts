/**
 * OpenTelemetry written by hand into the floor loops: what a careful
 * developer adds to a hand-written tool loop to get the spans and metrics
 * zidane's `telemetry` option gives, with the same names, attributes and
 * records, so that the two loops do the same telemetry work.
 *
 * Per run, one `invoke_agent` span; per model call, a `chat <model>` span
 * (its request attributes at start, the answer's after it) and four
 * histogram records (time to first chunk, input and output tokens,
 * duration); per tool call, an `execute_tool <name>` span under the run's.
 * The metric attributes are made once per run, as zidane makes them.
 *
 * It measures the leanest code for that work: the SDK's cost with nothing of
 * an agent framework around it. `loop-overhead` prints the floor's
 * telemetry on / off beside zidane's.
 */

import type { Attributes, Context, Histogram, Meter, Span, Tracer } from '@opentelemetry/api'
import { context, SpanKind, trace } from '@opentelemetry/api'

/** Where the floor's telemetry goes: a tracer and a meter of the host's SDK. */
export interface FloorTelemetryOptions {
  tracer: Tracer
  meter: Meter
  agentName: string
  /** The conversation's id when the run keeps one (zidane's session id, the floor's log). */
  conversationId?: string
}

interface Instruments {
  tokenUsage: Histogram
  duration: Histogram
  firstChunk: Histogram
}

/** One run's telemetry, made by `startFloorRun`. */
export interface FloorRunTelemetry {
  /** Open a model call's span (`turn` counts from 1). */
  chat: (turn: number) => FloorChatSpan
  /** Open a tool call's span; end it with `span.end()`. */
  tool: (name: string, description: string, callId: string, turn: number) => Span
  end: (turns: number, stopReason: string) => void
}

/** A model call's span and clock. */
export interface FloorChatSpan {
  firstChunk: () => void
  end: (answer: FloorAnswer) => void
}

/** What a model call answered, as its stream reported it. */
export interface FloorAnswer {
  model: string
  id: string
  finishReason: string
  input: number
  output: number
  cacheRead?: number
  cacheCreation?: number
  reasoning?: number
}

const instrumentsByMeter = new WeakMap<Meter, Instruments>()

function instrumentsOf(meter: Meter): Instruments {
  let made = instrumentsByMeter.get(meter)
  if (!made) {
    made = {
      tokenUsage: meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}' }),
      duration: meter.createHistogram('gen_ai.client.operation.duration', { unit: 's' }),
      firstChunk: meter.createHistogram('gen_ai.client.operation.time_to_first_chunk', { unit: 's' }),
    }
    instrumentsByMeter.set(meter, made)
  }
  return made
}

let runs = 0
/** Dollars per token, for the run's cost attribute (zidane prices the bench's models from its table). */
const INPUT_PRICE = 3 / 1_000_000
const OUTPUT_PRICE = 15 / 1_000_000

/** Open a run's `invoke_agent` span. */
export function startFloorRun(options: FloorTelemetryOptions, provider: string, model: string, maxTokens: number): FloorRunTelemetry {
  const { tracer, agentName } = options
  const conversationId = options.conversationId
  /** A span's start attributes with the conversation's id added when there is one (no leading spread: Node 20 builds those slowly). */
  const withConversation = (attributes: Attributes): Attributes => {
    if (conversationId !== undefined)
      attributes['gen_ai.conversation.id'] = conversationId
    return attributes
  }
  const instruments = instrumentsOf(options.meter)
  const runId = `run-${++runs}`
  const runSpan = tracer.startSpan(`invoke_agent ${agentName}`, {
    kind: SpanKind.INTERNAL,
    attributes: withConversation({ 'gen_ai.agent.name': agentName, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': provider, 'gen_ai.request.model': model, 'zidane.run.id': runId, 'zidane.run.depth': 0 }),
  })
  const parent: Context = trace.setSpan(context.active(), runSpan)
  // The run's usage, summed over its calls as its span reports it.
  let input = 0
  let output = 0
  let cacheRead = 0
  let cacheCreation = 0
  let reasoning: number | undefined
  let cost = 0
  let metrics: { call: Attributes, input: Attributes, output: Attributes } | undefined
  const metricsFor = (responseModel: string) => {
    if (!metrics) {
      const call = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': provider, 'gen_ai.request.model': model, 'gen_ai.agent.name': agentName, 'gen_ai.response.model': responseModel }
      metrics = { call, input: Object.assign({ 'gen_ai.token.type': 'input' }, call), output: Object.assign({ 'gen_ai.token.type': 'output' }, call) }
    }
    return metrics
  }
  return {
    chat(turn) {
      const span = tracer.startSpan(`chat ${model}`, {
        kind: SpanKind.CLIENT,
        attributes: withConversation({ 'gen_ai.agent.name': agentName, 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': provider, 'gen_ai.request.model': model, 'gen_ai.request.stream': true, 'zidane.model_call.kind': 'turn', 'zidane.model_call.attempt': 1, 'zidane.turn.id': `${runId}-${turn}`, 'gen_ai.request.max_tokens': maxTokens, 'zidane.run.id': runId }),
      }, parent)
      const startedAt = performance.now()
      let firstAt: number | undefined
      return {
        firstChunk() {
          firstAt ??= performance.now()
        },
        end(answer) {
          const dimensions = metricsFor(answer.model)
          span.setAttribute('gen_ai.response.model', answer.model)
          span.setAttribute('gen_ai.response.id', answer.id)
          span.setAttribute('gen_ai.response.finish_reasons', [answer.finishReason])
          span.setAttribute('gen_ai.usage.input_tokens', answer.input)
          span.setAttribute('gen_ai.usage.output_tokens', answer.output)
          if (answer.cacheRead !== undefined)
            span.setAttribute('gen_ai.usage.cache_read.input_tokens', answer.cacheRead)
          if (answer.cacheCreation !== undefined)
            span.setAttribute('gen_ai.usage.cache_creation.input_tokens', answer.cacheCreation)
          if (answer.reasoning !== undefined)
            span.setAttribute('gen_ai.usage.reasoning.output_tokens', answer.reasoning)
          input += answer.input
          output += answer.output
          cacheRead += answer.cacheRead ?? 0
          cacheCreation += answer.cacheCreation ?? 0
          if (answer.reasoning !== undefined)
            reasoning = (reasoning ?? 0) + answer.reasoning
          cost += answer.input * INPUT_PRICE + answer.output * OUTPUT_PRICE
          if (firstAt !== undefined) {
            const seconds = (firstAt - startedAt) / 1000
            span.setAttribute('gen_ai.response.time_to_first_chunk', seconds)
            instruments.firstChunk.record(seconds, dimensions.call)
          }
          instruments.tokenUsage.record(answer.input, dimensions.input)
          instruments.tokenUsage.record(answer.output, dimensions.output)
          instruments.duration.record((performance.now() - startedAt) / 1000, dimensions.call)
          span.end()
        },
      }
    },
    tool(name, description, callId, turn) {
      return tracer.startSpan(`execute_tool ${name}`, {
        kind: SpanKind.INTERNAL,
        attributes: withConversation({ 'gen_ai.agent.name': agentName, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': callId, 'gen_ai.tool.type': 'function', 'zidane.run.id': runId, 'zidane.turn.id': `${runId}-${turn}`, 'gen_ai.tool.description': description }),
      }, parent)
    },
    end(turns, stopReason) {
      runSpan.setAttribute('gen_ai.usage.input_tokens', input)
      runSpan.setAttribute('gen_ai.usage.output_tokens', output)
      runSpan.setAttribute('gen_ai.usage.cache_read.input_tokens', cacheRead)
      runSpan.setAttribute('gen_ai.usage.cache_creation.input_tokens', cacheCreation)
      if (reasoning !== undefined)
        runSpan.setAttribute('gen_ai.usage.reasoning.output_tokens', reasoning)
      runSpan.setAttribute('zidane.usage.cost', cost)
      runSpan.setAttribute('zidane.run.turns', turns)
      runSpan.setAttribute('zidane.run.stop_reason', stopReason)
      runSpan.setAttribute('gen_ai.response.finish_reasons', [stopReason])
      runSpan.end()
    },
  }
}
