import type { NestedToolCallOptions, NestedToolCallResult, ToolContext } from '../tools/types'
import type { AnsweredCall } from './call-answer'
import type { PreparedCall } from './call-resolve'
import type { RunContext } from './run-context'
import { setMaxListeners } from 'node:events'
import { refuseOverDeepInput } from '../providers/tool-json'
import { groupDigits } from '../text/group-digits'
import { prepareCall } from './call-resolve'
import { MAX_NESTED_CALLS_PER_CALL } from './nested-call-log'

/** How deep calls made by tools may nest: a call at this depth may not make another. */
export const MAX_NESTED_TOOL_CALL_DEPTH = 8

/** The `callTool` of one running call, and the end of it. */
export interface NestedCaller {
  readonly callTool: ToolContext['callTool']
  /** The calling tool has finished: calls it still has in flight are cut, and later ones refused. */
  readonly close: () => void
}

/**
 * What a running call's tool gets as `ToolContext.callTool`. Each nested call
 * is resolved as the model's calls are, then answered by `answer` (the whole
 * pipeline: batch gate as a batch of one, per-call gate, `tool:gate`,
 * validation, the tool, transforms, result phase). Its id is the caller's id,
 * a dot and a counter, and it is recorded in the caller's log.
 */
export function nestedCaller(run: RunContext, caller: PreparedCall, answer: (run: RunContext, call: PreparedCall) => Promise<AnsweredCall>): NestedCaller {
  let count = 0
  let closed = false
  // Created by the first nested call: most tools make none. It ends when the caller's signal does or the caller
  // finishes; each call in flight links to it rather than to the caller's signal, which thus gets one listener
  // whatever the number of calls (more than ten in flight, a script's sixteen, printed MaxListenersExceededWarning).
  let ended: AbortController | undefined
  let unlinkCaller = (): void => {}

  const start = (): AbortController => {
    const controller = new AbortController()
    // One listener per call in flight, each removed once its call is answered: many is the design, not a leak.
    setMaxListeners(0, controller.signal)
    if (caller.signal.aborted) {
      controller.abort(caller.signal.reason)
      return controller
    }
    const onAbort = () => controller.abort(caller.signal.reason)
    caller.signal.addEventListener('abort', onAbort, { once: true })
    unlinkCaller = () => caller.signal.removeEventListener('abort', onAbort)
    return controller
  }

  const callTool = async (name: string, input: Record<string, unknown>, options?: NestedToolCallOptions): Promise<NestedToolCallResult> => {
    const callId = `${caller.base.callId}.${++count}`
    const calledName = typeof name === 'string' ? name : String(name)
    if (closed || caller.log.isClosed)
      return refused(callId, calledName, `Error: ${calledName} was not run: the tool that called it (${caller.base.callId}) has already finished.`)
    if (caller.log.isFull)
      return refused(callId, calledName, `Error: ${calledName} was not run: one call of the model may make at most ${groupDigits(MAX_NESTED_CALLS_PER_CALL)} nested tool calls in all (its tool's and theirs), and this would be one more.`)
    ended ??= start()
    const link = linkSignals([ended.signal, options?.signal])
    const line = isLine(options?.line) ? options.line : undefined
    const level = caller.level + 1
    const wellFormed = isJsonObject(input)
    const call = prepareCall(
      run,
      { turnId: caller.base.turnId, nested: { parentToolCallId: caller.base.callId, level, signal: link.signal, ...(line === undefined ? {} : { line }) } },
      { id: callId, name: calledName, input: wellFormed ? refuseOverDeepInput(input) : {} },
      caller.log,
    )
    // Refusals the loop makes itself, answered before any hook runs (as for an unknown tool).
    if (!wellFormed)
      call.refusal = `Invalid arguments for ${call.base.displayName}: the arguments must be a JSON object.`
    else if (level > MAX_NESTED_TOOL_CALL_DEPTH)
      call.refusal = `Error: ${call.base.displayName} was not run: tools calling tools nest at most ${MAX_NESTED_TOOL_CALL_DEPTH} deep, and this call would be ${level} deep.`
    const entry = caller.log.start(callId, call.base.name, call.base.input, line)
    try {
      const { result, answer: how, outcome } = await answer(run, call)
      if (entry)
        caller.log.settle(entry, result.isError === true, result.durationMs ?? 0)
      return {
        callId,
        name: call.base.name,
        output: result.output,
        isError: result.isError === true,
        blocked: how.kind === 'refused',
        ...(how.kind === 'refused' ? { blockedBy: how.by } : {}),
        ...(outcome ? { outcome } : {}),
        ...(result.metadata ? { metadata: result.metadata } : {}),
        durationMs: result.durationMs ?? 0,
      }
    }
    finally {
      link.unlink()
    }
  }

  return {
    callTool,
    close: () => {
      closed = true
      unlinkCaller()
      ended?.abort(new Error(`the tool of call ${caller.base.callId} finished`))
    },
  }
}

function refused(callId: string, name: string, message: string): NestedToolCallResult {
  return { callId, name, output: message, isError: true, blocked: true, blockedBy: 'loop', durationMs: 0 }
}

function isLine(line: unknown): line is number {
  return typeof line === 'number' && Number.isInteger(line) && line > 0
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** One signal that aborts when any of `sources` does; `unlink` drops the listeners once the call is answered. */
function linkSignals(sources: readonly (AbortSignal | undefined)[]): { signal: AbortSignal, unlink: () => void } {
  const controller = new AbortController()
  const present = sources.filter((source): source is AbortSignal => source !== undefined)
  const already = present.find(source => source.aborted)
  if (already) {
    controller.abort(already.reason)
    return { signal: controller.signal, unlink: () => {} }
  }
  const onAbort = (event: Event) => controller.abort((event.target as AbortSignal).reason)
  for (const source of present)
    source.addEventListener('abort', onAbort, { once: true })
  return {
    signal: controller.signal,
    unlink: () => {
      for (const source of present)
        source.removeEventListener('abort', onAbort)
    },
  }
}
