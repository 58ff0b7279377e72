import type { SessionContentBlock } from '../core/content'
import type { TurnFinishReason, TurnUsage } from '../core/stats'
import type { Provider, ProviderCapabilities, StreamCallbacks, StreamOptions, ToolCall, TurnResult } from '../providers/types'
import { withGetters } from '../core/fast-accessors'
import { pushAll } from '../core/push-all'
import { ClassifiedError } from '../errors'
import { sleep } from '../loop/backoff'

/** Characters per streamed piece of a scripted tool call's arguments. */
const ARGUMENT_PIECE = 24

/** One scripted model turn. */
export interface ScriptedTurn {
  /** Text to stream; an array streams as several deltas. */
  text?: string | string[]
  /** Reasoning to stream before the text. */
  thinking?: string
  /** Tool calls the model makes; ids are generated when omitted. */
  toolCalls?: { name: string, input: Record<string, unknown>, id?: string }[]
  usage?: Partial<TurnUsage>
  /** Default: `'tool-calls'` when there are tool calls, else `'stop'`. */
  finishReason?: TurnFinishReason
  /** Fail this turn instead of answering. A `ClassifiedError` keeps its kind; anything else is retryable `server`. */
  error?: Error | { kind: ClassifiedError['kind'], message?: string, retryable?: boolean, retryAfterMs?: number }
  /** Wait this long before answering (honors the abort signal). */
  delayMs?: number
  /** Turn the script into a function of the request, e.g. to answer based on the last tool result. */
  respond?: (request: StreamOptions) => Omit<ScriptedTurn, 'respond'>
}

/** How the scripted provider presents itself (name, default model, capabilities). */
export interface ScriptedProviderOptions {
  name?: string
  defaultModel?: string
  contextWindow?: number
  capabilities?: Partial<ProviderCapabilities>
}

/** A provider that plays a script, plus what the loop sent it. */
export interface ScriptedProvider extends Provider {
  /** Every request, in order (signals included). */
  readonly requests: StreamOptions[]
  /** Turns not played yet. */
  readonly remaining: number
  /** Append more turns to the script. */
  push: (...turns: ScriptedTurn[]) => void
}

/**
 * A provider for offline tests of code built on zidane: each `stream()` call
 * plays the next scripted turn through the same callbacks a real provider
 * uses, so hooks, tools, retries and stats behave as they would live.
 * Running past the end of the script fails the turn with a clear error.
 */
export function scriptedProvider(turns: ScriptedTurn[] = [], options: ScriptedProviderOptions = {}): ScriptedProvider {
  const script = [...turns]
  const requests: StreamOptions[] = []
  let callCounter = 0

  return withGetters<ScriptedProvider, 'remaining'>({
    name: options.name ?? 'scripted',
    meta: { defaultModel: options.defaultModel ?? 'scripted-model', contextWindow: options.contextWindow },
    capabilities: {
      images: true,
      documents: true,
      toolResultMedia: true,
      thinking: true,
      promptCache: false,
      ...options.capabilities,
    },
    requests,
    push: (...more) => {
      pushAll(script, more)
    },
    async stream(request, callbacks) {
      requests.push(request)
      const next = script.shift()
      if (!next) {
        throw new ClassifiedError(`scriptedProvider: no scripted turn left for request ${requests.length}`, {
          kind: 'invalid_request',
          retryable: false,
          provider: options.name ?? 'scripted',
        })
      }
      const turn = next.respond ? next.respond(request) : next
      if (turn.delayMs)
        await abortableDelay(turn.delayMs, request.signal)
      if (turn.error)
        throw toClassified(turn.error, options.name ?? 'scripted')
      return play(turn, request, callbacks, () => `call_${++callCounter}`)
    },
  }, { remaining: () => script.length })
}

function play(turn: Omit<ScriptedTurn, 'respond'>, request: StreamOptions, callbacks: StreamCallbacks, nextId: () => string): TurnResult {
  if (request.signal.aborted)
    throw new ClassifiedError('aborted', { kind: 'aborted', retryable: false })
  const content: SessionContentBlock[] = []
  if (turn.thinking) {
    callbacks.onThinking(turn.thinking)
    content.push({ type: 'thinking', text: turn.thinking })
  }
  const deltas = turn.text === undefined ? [] : Array.isArray(turn.text) ? turn.text : [turn.text]
  for (const delta of deltas)
    callbacks.onText(delta)
  if (deltas.length > 0)
    content.push({ type: 'text', text: deltas.join('') })
  const toolCalls: ToolCall[] = (turn.toolCalls ?? []).map(call => ({ id: call.id ?? nextId(), name: call.name, input: call.input }))
  for (const call of toolCalls) {
    callbacks.onToolCallStart?.({ id: call.id, name: call.name })
    // The arguments stream in a few pieces, as a real API sends them.
    const json = JSON.stringify(call.input)
    for (let start = 0; start < json.length; start += ARGUMENT_PIECE)
      callbacks.onToolCallDelta?.({ id: call.id, name: call.name }, json.slice(start, start + ARGUMENT_PIECE))
    content.push({ type: 'tool_call', id: call.id, name: call.name, input: call.input })
  }
  const finishReason = turn.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop')
  return {
    content,
    toolCalls,
    finishReason,
    usage: { input: 10, output: 5, modelId: request.model, ...turn.usage, finishReason },
  }
}

function toClassified(error: NonNullable<ScriptedTurn['error']>, provider: string): ClassifiedError {
  if (error instanceof ClassifiedError)
    return error
  if (error instanceof Error)
    return new ClassifiedError(error.message, { kind: 'server', retryable: true, provider, cause: error })
  return new ClassifiedError(error.message ?? `scripted ${error.kind} error`, {
    kind: error.kind,
    retryable: error.retryable ?? false,
    retryAfterMs: error.retryAfterMs,
    provider,
  })
}

/** Wait, or fail as an aborted provider call when the request is cancelled. */
function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, signal).catch(() => {
    throw new ClassifiedError('aborted', { kind: 'aborted', retryable: false })
  })
}
