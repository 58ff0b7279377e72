import type { Meter, Tracer } from '@opentelemetry/api'

/**
 * OpenTelemetry for an agent (`AgentOptions.telemetry`): spans and metrics
 * after the GenAI semantic conventions. `@opentelemetry/api` is an optional
 * peer, loaded when the first run (or decision) of an agent with telemetry
 * starts; an agent without this option loads nothing of OpenTelemetry. See
 * docs/observability.md.
 */
export interface AgentTelemetry {
  /** Where spans go. Default: the global tracer provider's tracer named `zidane`. */
  tracer?: Tracer
  /** Where metrics go. Default: the global meter provider's meter named `zidane`. */
  meter?: Meter
  /**
   * Record what is sent: the messages and system instructions of each model
   * call, the tool definitions, a run's prompt, each tool call's arguments.
   * Default: `false` (they can hold personal data).
   */
  recordInputs?: boolean
  /**
   * Record what comes back: each model call's output messages, each tool
   * call's result, a run's final text. Default: `false`.
   */
  recordOutputs?: boolean
  /**
   * Cap of each recorded content attribute, in UTF-8 bytes: longer content is
   * cut (the span gets `zidane.content.truncated`). Default: 16 384.
   */
  maxContentBytes?: number
  /**
   * Called with each content attribute before it is recorded (after the cap):
   * return the text to record, or `undefined` to record nothing. A redaction
   * hook that throws drops the attribute.
   */
  redact?: (text: string, info: TelemetryContentInfo) => string | undefined
  /**
   * `gen_ai.agent.name` of the runs, and the agent dimension of the metrics.
   * Default: the run's `runAgent.name`, else its profile's name, else `zidane`.
   */
  agentName?: string
  /** `gen_ai.agent.id`. Default: the run's `runAgent.id` when it is a string, else a subagent's label (`child-1`). */
  agentId?: string
}

/** What a piece of recorded content is, for a redaction hook. */
export interface TelemetryContentInfo {
  /** The attribute it goes to (`gen_ai.input.messages`, `gen_ai.tool.call.arguments`, …). */
  readonly attribute: string
  /** The span's operation: `invoke_agent`, `chat` or `execute_tool`. */
  readonly operation: string
  /** The tool, on an `execute_tool` span. */
  readonly tool?: string
}

/** Default of `maxContentBytes`. */
export const DEFAULT_MAX_CONTENT_BYTES = 16_384
