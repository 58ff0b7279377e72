import type { SessionMessage } from '../core/content'
import type { TurnUsage } from '../core/stats'
import type { AgentHookName, HookContext } from '../hooks/hook-map'
import type { CompletionRequest, CompletionResult } from '../policies/policy'
import type { RunContext } from './run-context'
import type { TurnRequest } from './stream-turn'
import { mergeObjects } from '../core/merge-objects'
import { AgentAbortedError } from '../errors'
import { callHookBounded } from '../hooks/bus'
import { extendContext } from '../hooks/context'
import { fillEstimatedCost } from '../providers/catalog/cost'
import { wireMessageOf } from '../wire/messages'
import { streamWithFallback } from './fallback'
import { hookTimeout, runIds } from './stream-turn'
import { sendableMessages, wireView } from './wire-pipeline'

/**
 * `run.complete` for policies: one side-band model call built from the
 * request the loop sent last (system prompt, tools, thinking, caching and
 * messages exactly as they went out), extended with the turns recorded since
 * and the policy's prompt as a final user message (before the first request:
 * the conversation as the wire pipeline would send it). Sending the same prefix is what lets the provider serve it from
 * its prompt cache. Nothing is recorded and no stream hook fires: the text
 * is the policy's to use; its usage joins `run.sideCalls`, so the run's
 * totals, cost and spend budgets include it. Names no policy: any policy may call it.
 *
 * The call goes out the way a turn does: under the stream watchdogs (start,
 * idle, total, the wall deadline), with retries and backoff, moving to the
 * next fallback target when one fails for good, and aborted with the run.
 * It throws the error that would have ended a turn (`AgentProviderError`,
 * `AgentContextExceededError`, `AgentBudgetExceededError`), or
 * `AgentAbortedError` when the run was aborted meanwhile. A `maxTokens` of
 * the request never raises the run's own output ceiling.
 */
export async function completeForPolicy(run: RunContext, request: CompletionRequest): Promise<CompletionResult> {
  const turnId = run.clock.randomUUID()
  const conversation: SessionMessage[] = request.messages
    ? request.messages.slice()
    : run.lastRequest
      ? extendLastRequest(run, run.lastRequest)
      : await sendableMessages(run, turnId, wireView(run))
  conversation.push({ role: 'user', content: [...request.prompt] })
  const base: TurnRequest = run.lastRequest ?? {
    model: run.model,
    system: run.system,
    messages: [],
    tools: [...run.tools.specs],
    thinking: run.thinking,
    thinkingBudget: run.behavior.thinkingBudget,
    maxTokens: run.behavior.maxTokens,
    cache: run.behavior.cache,
    cacheTtl: run.behavior.cacheTtl,
    modelOptions: run.modelOptions,
  }
  const fields: Partial<TurnRequest> = { messages: conversation }
  if (request.maxTokens !== undefined)
    fields.maxTokens = base.maxTokens === undefined ? request.maxTokens : Math.min(request.maxTokens, base.maxTokens)
  const streamed = await streamWithFallback(run, turnId, extendContext(base, fields), { sideCall: true, purpose: request.purpose ?? 'complete' })
  if (!streamed)
    throw new AgentAbortedError('The run was aborted during a side call', { cause: run.signal.reason })
  const result = streamed.result
  // Billed like a turn: priced the same way, and counted in the run's totals and budgets.
  const usage: TurnUsage = fillEstimatedCost(extendContext(result.usage, { finishReason: result.finishReason }), run.provider.name, extendContext(run.catalogs, { requestedModel: run.model, cacheTtl: run.behavior.cacheTtl }))
  run.sideCalls.push(extendContext(usage, { purpose: request.purpose ?? 'complete', turn: run.turnCount }))
  let text = ''
  for (const block of result.content) {
    if (block.type === 'text')
      text += block.text
  }
  return { text, usage, model: run.model }
}

/**
 * The last request's messages exactly as they were sent, followed by the
 * turns recorded since (the model's answer and its tool results), as the
 * model knows them. Re-running the pipeline instead could move a wire
 * frontier and rewrite the very prefix this call means to read from cache.
 */
function extendLastRequest(run: RunContext, last: TurnRequest): SessionMessage[] {
  const messages = last.messages.slice()
  for (const turn of run.turns.slice(run.lastRequestTurns ?? run.turns.length)) {
    const message = wireMessageOf(turn)
    if (!message)
      continue
    const renamed = message.content.map(block => block.type === 'tool_call' && run.tools.toWire(block.name) !== block.name
      ? mergeObjects(block, { name: run.tools.toWire(block.name) })
      : block)
    messages.push({ role: message.role, content: renamed })
  }
  return messages
}

/** `run.emit` for policies: a host event with the run's ids, bounded like every loop hook; a throwing handler is logged. */
export async function emitForPolicy<K extends AgentHookName>(run: RunContext, event: K, context: Omit<HookContext<K>, 'runId' | 'depth' | 'parentRunId' | 'parentCallId'>): Promise<void> {
  await callHookBounded(run.hooks, event, mergeObjects(runIds(run), context) as HookContext<K>, { timeoutMs: hookTimeout(run), failClosed: false })
}
