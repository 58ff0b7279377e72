import type { CompletionRequest, CompletionResult } from '../behavior/policy'
import type { SessionMessage } from '../core/content'
import type { AgentHookName, HookContext } from '../hooks/hook-map'
import type { RunContext } from './run-context'
import type { TurnRequest } from './stream-turn'
import { callHookBounded } from '../hooks/bus'
import { extendContext } from '../hooks/context'
import { requestForTarget } from './model-metadata'
import { hookTimeout, runIds } from './stream-turn'
import { sendableMessages, wireView } from './wire-pipeline'

/**
 * `run.complete` for policies: one side-band model call built from the
 * request the loop sent last (system prompt, tools, thinking and caching
 * exactly as they went out), with the conversation as the wire pipeline
 * would send it now and the policy's prompt appended as a final user
 * message. Sending the same prefix is what lets the provider serve it from
 * its prompt cache. Nothing is recorded and no stream hook fires: the text
 * is the policy's to use. Names no policy: any policy may call it.
 */
export async function completeForPolicy(run: RunContext, request: CompletionRequest): Promise<CompletionResult> {
  const turnId = run.clock.randomUUID()
  const conversation: SessionMessage[] = request.messages
    ? request.messages.slice()
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
    fields.maxTokens = request.maxTokens
  const options = requestForTarget(run, extendContext(base, fields))
  const result = await run.provider.stream(extendContext(options, { signal: run.signal }), { onText() {}, onThinking() {} })
  let text = ''
  for (const block of result.content) {
    if (block.type === 'text')
      text += block.text
  }
  return { text, usage: result.usage, model: run.model }
}

/** `run.emit` for policies: a host event with the run's ids, bounded like every loop hook; a throwing handler is logged. */
export async function emitForPolicy<K extends AgentHookName>(run: RunContext, event: K, context: Omit<HookContext<K>, 'runId' | 'depth' | 'parentRunId' | 'parentCallId'>): Promise<void> {
  await callHookBounded(run.hooks, event, { ...runIds(run), ...context } as HookContext<K>, { timeoutMs: hookTimeout(run), failClosed: false })
}
