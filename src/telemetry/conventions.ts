/**
 * The names of the OpenTelemetry GenAI semantic conventions zidane emits,
 * written out here so that the package never loads
 * `@opentelemetry/semantic-conventions` at run time (the conventions are
 * still marked Development and move between releases; the tests check every
 * name against that package's incubating constants). See docs/observability.md.
 */

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestStream: 'gen_ai.request.stream',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  responseTimeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  usageReasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  conversationId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  toolName: 'gen_ai.tool.name',
  toolDescription: 'gen_ai.tool.description',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  toolDefinitions: 'gen_ai.tool.definitions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  outputType: 'gen_ai.output.type',
  tokenType: 'gen_ai.token.type',
} as const

/** `error.type`: the class of error an operation ended with. */
export const ERROR_TYPE = 'error.type'

/** The values of `gen_ai.operation.name` zidane uses. */
export const OPERATION = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const

/** The values of `gen_ai.token.type`. */
export const TOKEN_TYPE = { input: 'input', output: 'output' } as const

/** Attributes of zidane's own, for what the conventions have no name for. */
export const ZIDANE = {
  runId: 'zidane.run.id',
  parentRunId: 'zidane.run.parent_id',
  depth: 'zidane.run.depth',
  stopReason: 'zidane.run.stop_reason',
  turns: 'zidane.run.turns',
  cost: 'zidane.usage.cost',
  /** `turn`, `side-call` or `decision`: what a `chat` span's call was for. */
  callKind: 'zidane.model_call.kind',
  /** 1 for a call's first attempt; a retry is a new span with the next number. */
  attempt: 'zidane.model_call.attempt',
  /** A side call's purpose, as the policy named it (`compact`). */
  purpose: 'zidane.model_call.purpose',
  retryDelayMs: 'zidane.retry.delay_ms',
  fallbackFromProvider: 'zidane.fallback.from.provider',
  fallbackFromModel: 'zidane.fallback.from.model',
  fallbackToProvider: 'zidane.fallback.to.provider',
  fallbackToModel: 'zidane.fallback.to.model',
  turnId: 'zidane.turn.id',
  parentToolCallId: 'zidane.tool.parent_call_id',
  /** Set on a span whose recorded content was cut to `maxContentBytes`. */
  contentTruncated: 'zidane.content.truncated',
} as const

/** Span events zidane adds to the `invoke_agent` span. */
export const EVENTS = {
  retry: 'zidane.model_call.retry',
  fallback: 'zidane.model.fallback',
} as const

/** The metrics and their units and bucket boundaries, as the conventions advise. */
export const METRICS = {
  tokenUsage: { name: 'gen_ai.client.token.usage', unit: '{token}', description: 'Number of input and output tokens used.' },
  operationDuration: { name: 'gen_ai.client.operation.duration', unit: 's', description: 'GenAI operation duration.' },
  timeToFirstChunk: { name: 'gen_ai.client.operation.time_to_first_chunk', unit: 's', description: 'Time to receive the first chunk of a streamed response.' },
} as const

export const TOKEN_BUCKETS: readonly number[] = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]
export const SECONDS_BUCKETS: readonly number[] = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]

/** The instrumentation scope zidane's tracer and meter are named after. */
export const INSTRUMENTATION_SCOPE = 'zidane'
