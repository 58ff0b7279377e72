import type { SessionTurn, ToolResultBlock } from '../core/content'
import type { TurnUsage } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { ToolCall, ToolResult } from '../providers/types'
import type { RunContext } from './run-context'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { extendContext } from '../hooks/context'
import { fillEstimatedCost } from '../providers/catalog/cost'
import { dispatchToolCalls } from './dispatch'
import { streamWithFallback } from './fallback'
import { turnAfterContext } from './hook-contexts'
import { hookTimeout, runIds } from './stream-turn'
import { sendableMessages, wireView } from './wire-pipeline'

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
    if (run.pauseSignal?.aborted)
      return 'paused'
    if (run.turnCount >= maxTurns)
      return 'max-turns'

    if (run.pending.length > 0)
      await appendPendingTurns(run)
    run.turnCount += 1
    const turnId = run.clock.randomUUID()
    const request = await prepareRequest(run, turnId)
    const streamed = await streamWithFallback(run, turnId, request)
    if (!streamed)
      return 'aborted'

    const { result } = streamed
    // Providers that report no cost get one from the model catalog.
    const usage: TurnUsage = fillEstimatedCost(extendContext(result.usage, {
      finishReason: result.finishReason,
      timeToFirstTokenMs: streamed.timeToFirstTokenMs,
      streamDurationMs: streamed.streamDurationMs,
    }), run.provider.name, extendContext(run.catalogs, { requestedModel: run.model, cacheTtl: run.behavior.cacheTtl }))
    const hookOpts = { timeoutMs: hookTimeout(run), failClosed: false }
    const content = canonicalToolNames(run, result.content)
    // Each context is built only when someone listens: most hooks have no handler on most turns.
    if (hasHookHandlers(run.hooks, 'stream:end'))
      await callHookBounded(run.hooks, 'stream:end', extendContext(runIds(run), { turnId, content, usage, finishReason: result.finishReason }), hookOpts)
    const assistant = await appendTurn(run, turnId, 'assistant', content, { usage })
    run.usage.push(usage)
    if (hasHookHandlers(run.hooks, 'usage'))
      await callHookBounded(run.hooks, 'usage', extendContext(runIds(run), { turnId, usage }), hookOpts)

    const toolResults = await answerToolCalls(run, turnId, result.toolCalls)
    if (run.session && run.behavior.persistTurns !== false)
      await persistNewTurns(run)
    if (hasHookHandlers(run.hooks, 'turn:after')) {
      await callHookBounded(run.hooks, 'turn:after', turnAfterContext(run, turnId, {
        turn: run.turnCount,
        assistant,
        toolResults,
        usage,
        finishReason: result.finishReason,
      }), hookOpts)
    }

    if (run.signal.aborted)
      return 'aborted'
    if (run.stopRequest)
      return run.stopRequest
    if (toolResults.length > 0 || run.keepGoing) {
      run.keepGoing = false
      continue
    }
    if (result.finishReason === 'length')
      return 'length'
    if (result.finishReason === 'content-filter')
      return 'content-filter'
    return 'completed'
  }
}

/**
 * Build this turn's request. The messages come from the wire pipeline
 * (`./wire-pipeline`): its pure view first, shown to `turn:before`, then the
 * host's `context:transform`, pairing repair and tool names.
 */
async function prepareRequest(run: RunContext, turnId: string) {
  const strict = { timeoutMs: hookTimeout(run), failClosed: true }
  let system = run.system
  const view = wireView(run)
  if (hasHookHandlers(run.hooks, 'turn:before'))
    await callHookBounded(run.hooks, 'turn:before', extendContext(runIds(run), { turnId, turn: run.turnCount, messages: view }), strict)
  if (hasHookHandlers(run.hooks, 'system:transform')) {
    const ctx = extendContext(runIds(run), { turnId, system })
    await callHookBounded(run.hooks, 'system:transform', ctx, strict)
    system = ctx.system
  }
  const messages = await sendableMessages(run, turnId, view)
  const b = run.behavior
  return {
    model: run.model,
    system,
    messages,
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
    await callHookBounded(run.hooks, 'tool-results:after', extendContext(runIds(run), { turnId, results }), { timeoutMs: hookTimeout(run), failClosed: false })
  return results
}

/**
 * Pending user turns join the conversation: the loop's own (marked
 * `injected`), and messages steered in or queued as follow-ups (announced on
 * `steer:inject` with the caller's id).
 */
async function appendPendingTurns(run: RunContext): Promise<void> {
  for (let next = run.pending.shift(); next; next = run.pending.shift()) {
    const turn = await appendTurn(run, run.clock.randomUUID(), 'user', next.content, next.injected ? { injected: next.injected } : {})
    if (next.queued) {
      await callHookBounded(run.hooks, 'steer:inject', {
        ...runIds(run),
        turnId: turn.id,
        kind: next.queued.kind,
        id: next.queued.id,
        prompt: next.queued.prompt,
      }, { timeoutMs: hookTimeout(run), failClosed: false })
    }
  }
}

/**
 * Store the turns recorded since the last write, as one batch. Called after
 * each turn's tool results, so a tool call is stored together with its
 * result, and once more when the run ends.
 */
export async function persistNewTurns(run: RunContext): Promise<void> {
  const session = run.session
  if (!session || run.persistedCount >= run.turns.length)
    return
  const batch = run.turns.slice(run.persistedCount)
  await session.appendTurns(batch)
  run.persistedCount += batch.length
  if (hasHookHandlers(run.hooks, 'session:turns'))
    await callHookBounded(run.hooks, 'session:turns', { ...runIds(run), sessionId: session.id, turns: batch }, { timeoutMs: hookTimeout(run), failClosed: false })
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
