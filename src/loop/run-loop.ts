import type { RunContext } from '../agent/run-context'
import type { TurnUsage } from '../agent/stats'
import type { StopReason } from '../agent/stop-reason'
import type { ToolCall, ToolResult } from '../providers/types'
import type { SessionTurn, ToolResultBlock } from '../session/content'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { applyWireToolNames, buildWireMessages } from '../wire/messages'
import { dispatchToolCalls } from './dispatch'
import { hookTimeout, runIds, streamTurn } from './stream-turn'

/**
 * The agent loop. Each pass: add any queued user messages, stream one
 * assistant turn, answer its tool calls, let policies react (`turn:after`),
 * and stop when the model called no tools, a limit is reached, or the run was
 * aborted. Policies and hooks change what happens through the run context;
 * nothing here knows a policy by name.
 */
export async function runLoop(run: RunContext): Promise<StopReason> {
  const maxTurns = run.behavior.maxTurns ?? Number.POSITIVE_INFINITY
  while (true) {
    if (run.signal.aborted)
      return 'aborted'
    if (run.turnCount >= maxTurns)
      return 'max-turns'

    await appendPendingMessages(run)
    run.turnCount += 1
    const turnId = run.clock.randomUUID()
    const request = await prepareRequest(run, turnId)
    const streamed = await streamTurn(run, turnId, request)
    if (!streamed)
      return 'aborted'

    const { result } = streamed
    const usage: TurnUsage = {
      ...result.usage,
      finishReason: result.finishReason,
      timeToFirstTokenMs: streamed.timeToFirstTokenMs,
      streamDurationMs: streamed.streamDurationMs,
    }
    const hookOpts = { timeoutMs: hookTimeout(run), failClosed: false }
    const content = canonicalToolNames(run, result.content)
    // Each context is built only when someone listens: most hooks have no handler on most turns.
    if (hasHookHandlers(run.hooks, 'stream:end'))
      await callHookBounded(run.hooks, 'stream:end', { ...runIds(run), turnId, content, usage, finishReason: result.finishReason }, hookOpts)
    const assistant = await appendTurn(run, turnId, 'assistant', content, { usage })
    run.usage.push(usage)
    if (hasHookHandlers(run.hooks, 'usage'))
      await callHookBounded(run.hooks, 'usage', { ...runIds(run), turnId, usage }, hookOpts)

    const toolResults = await answerToolCalls(run, turnId, result.toolCalls)
    if (hasHookHandlers(run.hooks, 'turn:after')) {
      await callHookBounded(run.hooks, 'turn:after', {
        ...runIds(run),
        turnId,
        turn: run.turnCount,
        assistant,
        toolResults,
        usage,
        finishReason: result.finishReason,
      }, hookOpts)
    }

    if (run.signal.aborted)
      return 'aborted'
    if (run.stopRequest)
      return run.stopRequest
    if (toolResults.length > 0)
      continue
    if (run.continuation) {
      run.pending.unshift(run.continuation)
      run.continuation = undefined
      continue
    }
    if (result.finishReason === 'length')
      return 'length'
    if (result.finishReason === 'content-filter')
      return 'content-filter'
    return 'completed'
  }
}

/** Build this turn's request: the wire view, transformed by hooks, with tools under their wire names. */
async function prepareRequest(run: RunContext, turnId: string) {
  const ids = { ...runIds(run), turnId }
  const strict = { timeoutMs: hookTimeout(run), failClosed: true }
  const wire = buildWireMessages(run.turns)
  if (hasHookHandlers(run.hooks, 'turn:before'))
    await callHookBounded(run.hooks, 'turn:before', { ...ids, turn: run.turnCount, messages: wire }, strict)
  const system = { ...ids, system: run.system }
  if (hasHookHandlers(run.hooks, 'system:transform'))
    await callHookBounded(run.hooks, 'system:transform', system, strict)
  const context = { ...ids, messages: wire }
  if (hasHookHandlers(run.hooks, 'context:transform'))
    await callHookBounded(run.hooks, 'context:transform', context, strict)
  const b = run.behavior
  return {
    model: run.model,
    system: system.system,
    messages: applyWireToolNames(context.messages, run.tools.toWire),
    tools: [...run.tools.specs],
    thinking: run.thinking,
    thinkingBudget: b.thinkingBudget,
    taskBudget: b.taskBudget,
    effortHint: b.effortHint,
    maxTokens: b.maxTokens,
    cache: b.cache,
    cacheTtl: b.cacheTtl,
    modelOptions: run.modelOptions,
  }
}

/** Answer the tool calls and record the results as one user turn: every call is paired, even on abort. */
async function answerToolCalls(run: RunContext, turnId: string, calls: readonly ToolCall[]): Promise<ToolResult[]> {
  if (calls.length === 0)
    return []
  const blocks: ToolResultBlock[] = await dispatchToolCalls(run, turnId, calls)
  await appendTurn(run, run.clock.randomUUID(), 'user', blocks)
  const results = blocks.map(block => ({ callId: block.callId, output: block.output, isError: block.isError }))
  if (hasHookHandlers(run.hooks, 'tool-results:after'))
    await callHookBounded(run.hooks, 'tool-results:after', { ...runIds(run), turnId, results }, { timeoutMs: hookTimeout(run), failClosed: false })
  return results
}

/** Queued user messages (nudges, continuations) become user turns marked `injected`. */
async function appendPendingMessages(run: RunContext): Promise<void> {
  while (run.pending.length > 0) {
    const message = run.pending.shift()!
    await appendTurn(run, run.clock.randomUUID(), 'user', [{ type: 'text', text: message.text, origin: 'injected' }], { injected: message.reason })
  }
}

async function appendTurn(
  run: RunContext,
  id: string,
  role: SessionTurn['role'],
  content: SessionTurn['content'],
  extra: Partial<Pick<SessionTurn, 'usage' | 'injected'>> = {},
): Promise<SessionTurn> {
  const turn: SessionTurn = { id, role, content, createdAt: await run.clock.now(), runId: run.runId, ...extra }
  run.turns.push(turn)
  return turn
}

/** Sessions and hooks keep canonical tool names; the provider returned wire names. */
function canonicalToolNames(run: RunContext, content: SessionTurn['content']): SessionTurn['content'] {
  return content.map(block =>
    block.type === 'tool_call' && run.tools.toCanonical(block.name) !== block.name
      ? { ...block, name: run.tools.toCanonical(block.name) }
      : block)
}
