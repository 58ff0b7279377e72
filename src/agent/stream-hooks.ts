import type { ChildEventMarks, HookContext, RunHookMap } from '../hooks/hook-map'
import type { EventBuffer } from './event-buffer'
import type { AgentEventBase, OutputPartialEvent, ToolApprovalEvent, ToolProgressEvent } from './stream-events'
import { withGetters } from '../core/fast-accessors'

/** The events `agent.stream()` listens to, for the run itself and (as `child:<event>`) for its subagents. */
type ListenedHook
  = | 'agent:start' | 'turn:before' | 'stream:text' | 'stream:thinking' | 'stream:retry' | 'model:fallback'
    | 'stream:end' | 'tool:progress' | 'tool:approval' | 'tool:after' | 'tool-results:after' | 'turn:after' | 'steer:inject'
    | 'spawn:before' | 'spawn:complete' | 'spawn:error' | 'output:partial'

/** Turn one hook context into events; a returned promise is where the run waits for the reader. */
type Translate<K extends ListenedHook> = (ctx: HookContext<K> & Partial<ChildEventMarks>, own: boolean) => Promise<void> | void

type Translators = { [K in ListenedHook]: Translate<K> }

/** A hook's base fields, with `childId` only on subagent events. */
function base(ctx: { runId: string, depth?: number, childId?: string }): AgentEventBase {
  // Tool hook contexts omit `depth` at the top level; a stream event always carries it.
  const depth = ctx.depth ?? 0
  return ctx.childId === undefined ? { runId: ctx.runId, depth } : { runId: ctx.runId, depth, childId: ctx.childId }
}

/** A spawn event's call id, left out when the payload had none. */
function callIdOf(ctx: { callId?: string }): { callId?: string } {
  return ctx.callId === undefined ? {} : { callId: ctx.callId }
}

/**
 * The per-run hooks that feed `buffer`. Tool calls are announced from
 * `stream:end` (every call the model made, before any runs) and answered from
 * `tool:after` as each finishes; `tool-results:after` answers any call that
 * finished without a `tool:after` report, so every announced call gets exactly
 * one result. The run itself waits for the reader at its awaited boundaries;
 * subagent events reach the parent without being awaited, so they never wait.
 */
export function streamEventHooks(buffer: EventBuffer, onRunStart: (runId: string) => void): RunHookMap {
  /** Announced calls still waiting for their result, by run and call id. */
  const open = new Map<string, string>()
  const callKey = (runId: string, callId: string) => `${runId}\n${callId}`
  const wait = (own: boolean) => own ? buffer.drained() : undefined

  const translators: Translators = {
    'agent:start': (ctx, own) => {
      if (own)
        onRunStart(ctx.runId)
      buffer.push({ type: 'run-start', ...base(ctx), provider: ctx.provider, model: ctx.model })
    },
    'turn:before': (ctx) => {
      buffer.push({ type: 'turn-start', ...base(ctx), turnId: ctx.turnId, turn: ctx.turn })
    },
    // Built as literals: these run once per streamed delta.
    'stream:text': (ctx) => {
      buffer.pushDelta(ctx.childId === undefined
        ? { type: 'text', runId: ctx.runId, depth: ctx.depth, turnId: ctx.turnId, delta: ctx.delta }
        : { type: 'text', runId: ctx.runId, depth: ctx.depth, childId: ctx.childId, turnId: ctx.turnId, delta: ctx.delta })
    },
    'stream:thinking': (ctx) => {
      buffer.pushDelta(ctx.childId === undefined
        ? { type: 'thinking', runId: ctx.runId, depth: ctx.depth, turnId: ctx.turnId, delta: ctx.delta }
        : { type: 'thinking', runId: ctx.runId, depth: ctx.depth, childId: ctx.childId, turnId: ctx.turnId, delta: ctx.delta })
    },
    'stream:retry': (ctx, own) => {
      const { turnId, attempt, delayMs, error, discardedThinking } = ctx
      buffer.push({ type: 'retry', ...base(ctx), turnId, attempt, delayMs, error, discardedThinking })
      return wait(own)
    },
    'model:fallback': (ctx, own) => {
      buffer.push({ type: 'fallback', ...base(ctx), turnId: ctx.turnId, from: ctx.from, to: ctx.to, error: ctx.error })
      return wait(own)
    },
    'stream:end': (ctx, own) => {
      for (const block of ctx.content) {
        if (block.type !== 'tool_call')
          continue
        open.set(callKey(ctx.runId, block.id), block.name)
        buffer.push({ type: 'tool-call', ...base(ctx), turnId: ctx.turnId, callId: block.id, name: block.name, input: block.input })
      }
      return wait(own)
    },
    'tool:progress': (ctx, own) => {
      const { turnId, callId, name, kind, text, tool, line, completed, total, sequence, skipped } = ctx
      // Typed as the one event it is: checked against the whole event union, this literal costs the compiler dearly.
      const event: ToolProgressEvent = { type: 'tool-progress', ...base(ctx), turnId, callId, name, kind, sequence, skipped }
      if (text !== undefined)
        event.text = text
      if (tool !== undefined)
        event.tool = tool
      if (line !== undefined)
        event.line = line
      if (completed !== undefined)
        event.completed = completed
      if (total !== undefined)
        event.total = total
      buffer.push(event)
      // The reader sets the pace: progress arriving meanwhile is merged into the newest report.
      return wait(own)
    },
    'tool:approval': (ctx) => {
      const { turnId, callId, name, input, parentToolCallId, approve, deny, suspend } = ctx
      // A suspended call asked about again by a continuation was announced in an earlier run: announce it here, so its result follows.
      if (parentToolCallId === undefined && !open.has(callKey(ctx.runId, callId))) {
        open.set(callKey(ctx.runId, callId), name)
        buffer.push({ type: 'tool-call', ...base(ctx), turnId, callId, name, input })
      }
      const event: ToolApprovalEvent = { type: 'tool-approval', ...base(ctx), turnId, callId, name, input, approve, deny, suspend }
      if (parentToolCallId !== undefined)
        event.parentToolCallId = parentToolCallId
      buffer.push(event)
    },
    'tool:after': (ctx, own) => {
      if (!open.delete(callKey(ctx.runId, ctx.callId)))
        return
      const { turnId, callId, name, result, isError, durationMs, outcome } = ctx
      buffer.push({ type: 'tool-result', ...base(ctx), turnId, callId, name, output: result, isError, durationMs, ...(outcome ? { outcome } : {}) })
      return wait(own)
    },
    'tool-results:after': (ctx, own) => {
      for (const result of ctx.results) {
        const key = callKey(ctx.runId, result.callId)
        const name = open.get(key)
        if (name === undefined)
          continue
        open.delete(key)
        buffer.push({ type: 'tool-result', ...base(ctx), turnId: ctx.turnId, callId: result.callId, name, output: result.output, isError: result.isError === true })
      }
      return wait(own)
    },
    'turn:after': (ctx, own) => {
      buffer.push({ type: 'turn-end', ...base(ctx), turnId: ctx.turnId, turn: ctx.turn, usage: ctx.usage, finishReason: ctx.finishReason })
      return wait(own)
    },
    'steer:inject': (ctx, own) => {
      buffer.push({ type: 'user-message', ...base(ctx), turnId: ctx.turnId, kind: ctx.kind, ...(ctx.id === undefined ? {} : { id: ctx.id }), prompt: ctx.prompt })
      return wait(own)
    },
    'spawn:before': (ctx) => {
      buffer.push({ type: 'subagent-start', ...base(ctx), id: ctx.id, task: ctx.task, ...callIdOf(ctx) })
    },
    'spawn:complete': (ctx) => {
      buffer.push({ type: 'subagent-end', ...base(ctx), id: ctx.id, ...callIdOf(ctx), stats: ctx.stats })
    },
    'spawn:error': (ctx) => {
      buffer.push({ type: 'subagent-end', ...base(ctx), id: ctx.id, ...callIdOf(ctx), error: ctx.error })
    },
    'output:partial': (ctx) => {
      // The value is parsed only when the reader looks at it, as on the hook.
      buffer.push(withGetters<OutputPartialEvent, 'value'>({ type: 'output-partial', ...base(ctx), turnId: ctx.turnId, callId: ctx.callId, delta: ctx.delta, text: ctx.text }, { value: () => ctx.value }))
    },
  }

  // Filled as a plain record: assigning through a union of hook names makes
  // the compiler intersect every one of their handler types, which grows
  // steeply with each event the stream listens to.
  const hooks: Record<string, (ctx: unknown) => Promise<void> | void> = {}
  for (const [name, translate] of Object.entries(translators) as [ListenedHook, (ctx: unknown, own: boolean) => Promise<void> | void][]) {
    hooks[name] = ctx => translate(ctx, true)
    hooks[`child:${name}`] = ctx => translate(ctx, false)
  }
  return hooks as RunHookMap
}
