import type { SessionContentBlock, SessionTurn, ToolResultBlock } from '../core/content'
import type { TurnUsage } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { InvalidToolInput } from '../providers/tool-json'
import type { ToolCall, ToolResult } from '../providers/types'
import type { TurnVerdict } from './policy-runner'
import type { RunContext } from './run-context'
import type { StreamedTurn } from './stream-turn'
import { mergeObjects } from '../core/merge-objects'
import { pushAll } from '../core/push-all'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { extendContext } from '../hooks/context'
import { SESSION_DEFAULTS } from '../knobs/session-knobs'
import { fillEstimatedCost } from '../providers/catalog/cost'
import { INVALID_TOOL_INPUT_KEY, refuseOverDeepInput } from '../providers/tool-json'
import { settleApprovals } from './approval-resume'
import { uniqueCallIds } from './call-ids'
import { dispatchToolCalls } from './dispatch'
import { streamWithFallback } from './fallback'
import { turnAfterContext } from './hook-contexts'
import { adjustPrompt, adjustRequest, decideAfterTurn, decideProviderError, isProviderFailure, PhaseInterruptedError } from './policy-runner'
import { fitTurnResults } from './result-size'
import { hookTimeout, runIds } from './stream-turn'
import { sendableMessages, wireView } from './wire-pipeline'

/** The verdict of a turn no policy decides on. */
const NO_VERDICT: TurnVerdict = Object.freeze({ keepGoing: false, messages: Object.freeze([]) })
/** Where the after-turn fold starts: nothing decided yet, or a run aborted during the turn. */
const UNDECIDED = Object.freeze({})
const ABORTED = Object.freeze({ end: 'aborted' as const })

/**
 * The agent loop. Each pass: add any queued user messages (as one turn),
 * prepare the request (and let policies patch it), stream one assistant turn,
 * answer its tool calls (gated by the policies), let hooks observe and the
 * policies decide (`turn:after`, then the after-turn phase), and stop when the
 * model called no tools, a limit is reached, or the run was aborted. Policies
 * act through the decisions the runner folds; nothing here knows a policy by
 * name. See docs/architecture/loop.md.
 */
export async function runLoop(run: RunContext): Promise<StopReason> {
  try {
    return await loop(run)
  }
  catch (error) {
    // A policy phase was cut by an abort or by the wall: the run ends as aborted (results recorded so far stay paired).
    if (error instanceof PhaseInterruptedError)
      return 'aborted'
    throw error
  }
}

async function loop(run: RunContext): Promise<StopReason> {
  // A run suspended for approval answers its pending calls before anything else (or stays suspended).
  if (run.state.approvals) {
    const stop = await settleApprovals(run)
    if (stop)
      return stop
  }
  const maxTurns = run.behavior.maxTurns ?? Number.POSITIVE_INFINITY
  // Set while a turn runs again after a provider failure (a policy may retry a turn once).
  let retrying = false
  while (true) {
    if (run.signal.aborted)
      return 'aborted'
    if (run.pauseSignal?.aborted)
      return 'paused'
    if (run.suspendSignal?.aborted)
      return 'suspended'
    if (run.turnCount >= maxTurns)
      return 'max-turns'

    if (run.pending.length > 0)
      await appendPendingTurns(run)
    run.turnCount += 1
    const turnId = run.clock.randomUUID()
    let request = await prepareRequest(run, turnId)
    if (run.policyPhases.request.length > 0)
      request = await adjustRequest(run, run.turnCount, request)
    run.lastRequest = request
    run.lastRequestTurns = run.turns.length
    let streamed: StreamedTurn | undefined
    try {
      streamed = await streamWithFallback(run, turnId, request)
    }
    catch (error) {
      const next = await afterProviderFailure(run, error, retrying)
      if (next !== 'retry')
        return next
      // The failed turn never happened: it runs again under the same number.
      run.turnCount -= 1
      retrying = true
      continue
    }
    retrying = false
    if (!streamed)
      return 'aborted'

    const result = uniqueCallIds(run.turns, streamed.result)
    // Providers that report no cost get one from the model catalog.
    const usage: TurnUsage = fillEstimatedCost(extendContext(result.usage, {
      finishReason: result.finishReason,
      timeToFirstTokenMs: streamed.timeToFirstTokenMs,
      streamDurationMs: streamed.streamDurationMs,
    }), run.provider.name, extendContext(run.catalogs, { requestedModel: run.model, cacheTtl: run.behavior.cacheTtl }))
    const hookOpts = { timeoutMs: hookTimeout(run), failClosed: false }
    const content = canonicalToolNames(run, boundedBlockInputs(result.content))
    // Each context is built only when someone listens: most hooks have no handler on most turns.
    if (hasHookHandlers(run.hooks, 'stream:end'))
      await callHookBounded(run.hooks, 'stream:end', extendContext(runIds(run), { turnId, content, usage, finishReason: result.finishReason }), hookOpts)
    if (result.inputTransformations && hasHookHandlers(run.hooks, 'provider:input-transformations'))
      await callHookBounded(run.hooks, 'provider:input-transformations', extendContext(runIds(run), { turnId, provider: run.provider.name, model: usage.modelId ?? run.model, transformations: result.inputTransformations, thinkingDropped: usage.thinkingDropped ?? 0 }), hookOpts)
    const assistant = await appendTurn(run, turnId, 'assistant', content, { usage })
    run.usage.push(usage)
    if (hasHookHandlers(run.hooks, 'usage'))
      await callHookBounded(run.hooks, 'usage', extendContext(runIds(run), { turnId, usage }), hookOpts)

    // A durable run keeps the model's output before its tools run: a crash mid-tool loses none of it.
    if (run.durableMode !== undefined && result.toolCalls.length > 0 && run.session && (run.behavior.persistTurns ?? SESSION_DEFAULTS.persistTurns))
      await persistNewTurns(run)
    const toolResults = await answerToolCalls(run, turnId, boundedCallInputs(result.toolCalls))
    if (run.session && (run.behavior.persistTurns ?? SESSION_DEFAULTS.persistTurns))
      await persistNewTurns(run)
    // Calls left waiting for approval: the turn's results (placeholders for them) are recorded, and the run stops here.
    if (run.state.approvals)
      return run.signal.aborted ? 'aborted' : suspendForApproval(run, toolResults)
    const facts = { turnId, turn: run.turnCount, assistant, toolResults, usage, finishReason: result.finishReason }
    // Host hooks first, then the policies' after-turn phase (see docs/architecture/policies.md).
    if (hasHookHandlers(run.hooks, 'turn:after'))
      await callHookBounded(run.hooks, 'turn:after', turnAfterContext(run, turnId, facts), hookOpts)
    const verdict = run.policyPhases.afterTurn.length > 0 ? await decideAfterTurn(run, facts, run.signal.aborted ? ABORTED : UNDECIDED) : NO_VERDICT

    if (run.signal.aborted)
      return 'aborted'
    if (verdict.end) {
      if (verdict.result)
        run.stopResult = verdict.result
      return verdict.end
    }
    if (verdict.messages.length > 0)
      pushAll(run.pending, verdict.messages)
    if (toolResults.length > 0 || verdict.keepGoing) {
      // A turn boundary the run goes on from: the state went out with the turn's
      // records; it is saved again only if the phases since moved it (a run that ends saves it as it ends).
      if (run.checkpoint?.changed())
        await run.checkpoint.save()
      continue
    }
    if (result.finishReason === 'length')
      return 'length'
    if (result.finishReason === 'content-filter')
      return 'content-filter'
    return 'completed'
  }
}

/** The pending approvals in the order of the turn's calls (a batch answers them as they finish). */
function suspendForApproval(run: RunContext, results: readonly ToolResult[]): StopReason {
  const order = new Map(results.map((result, index) => [result.callId, index]))
  run.state.approvals!.sort((a, b) => (order.get(a.callId) ?? 0) - (order.get(b.callId) ?? 0))
  return 'suspended'
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
  const blocks: ToolResultBlock[] = fitTurnResults(await dispatchToolCalls(run, turnId, calls))
  await appendTurn(run, run.clock.randomUUID(), 'user', blocks)
  const results = blocks.map(block => ({ callId: block.callId, output: block.output, isError: block.isError }))
  if (hasHookHandlers(run.hooks, 'tool-results:after'))
    await callHookBounded(run.hooks, 'tool-results:after', extendContext(runIds(run), { turnId, results }), { timeoutMs: hookTimeout(run), failClosed: false })
  return results
}

/**
 * Pending messages join the conversation as one user turn: the loop's own
 * (nudges, continuations, notices, blocks marked `injected`) and messages
 * steered in or queued as follow-ups (each announced on `steer:inject` with
 * the caller's id). The turn is marked `injected` only when the loop wrote
 * all of it.
 */
async function appendPendingTurns(run: RunContext): Promise<void> {
  const parts = run.pending.splice(0)
  const injected = parts.every(part => part.injected !== undefined) ? parts[0].injected : undefined
  const content: SessionContentBlock[] = []
  for (const part of parts) {
    // What a person queued passes the prompt phase, as the run's prompt does; the loop's own messages do not.
    if (part.queued && run.policyPhases.prompt.length > 0)
      pushAll(content, await adjustPrompt(run, part.queued.kind, [...part.content]))
    else pushAll(content, part.content)
  }
  const turn = await appendTurn(run, run.clock.randomUUID(), 'user', content, injected ? { injected } : {})
  for (const part of parts) {
    if (part.queued) {
      await callHookBounded(run.hooks, 'steer:inject', mergeObjects(runIds(run), { turnId: turn.id, kind: part.queued.kind, id: part.queued.id, prompt: part.queued.prompt }), { timeoutMs: hookTimeout(run), failClosed: false })
    }
  }
}

/**
 * A turn failed for good at the provider: the policies' provider-error phase
 * may retry it (once), stop the run, or leave the error to end it as before.
 */
async function afterProviderFailure(run: RunContext, error: unknown, retried: boolean): Promise<'retry' | StopReason> {
  if (run.policyPhases.providerError.length === 0 || !isProviderFailure(error))
    throw error
  const next = await decideProviderError(run, run.turnCount, error, retried, run.pending)
  if (next !== undefined)
    return next
  // Aborted while a policy worked on the failure (a recovery's summary call, say): the abort is the outcome.
  if (run.signal.aborted)
    return 'aborted'
  throw error
}

/**
 * Store the turns recorded since the last write (up to `end`), as one batch.
 * Called after each turn's tool results, so a tool call is stored together
 * with its result, once more when the run ends, and by `session.save()`
 * (`persistSettledTurns`).
 */
export async function persistNewTurns(run: RunContext, end = run.turns.length): Promise<void> {
  const session = run.session
  const start = run.persistedCount
  if (!session || start >= end)
    return
  const all = run.turns.slice(start, end)
  // A replay writes again what its first execution wrote before it died: those turns are stored once.
  const stored = run.storedTurnIds
  const batch = stored && stored.size > 0 ? all.filter(turn => !stored.has(turn.id)) : all
  // Claimed before the write, so a `save()` meanwhile does not send these turns again; given back if the write fails.
  run.persistedCount = end
  try {
    // With a checkpoint, the run record and its state go in the same write as the turns.
    await session.appendTurns(batch, run.checkpoint?.record())
  }
  catch (error) {
    if (run.persistedCount === end)
      run.persistedCount = start
    throw error
  }
  if (batch.length > 0 && hasHookHandlers(run.hooks, 'session:turns'))
    await callHookBounded(run.hooks, 'session:turns', mergeObjects(runIds(run), { sessionId: session.id, turns: batch }), { timeoutMs: hookTimeout(run), failClosed: false })
}

/** What `session.save()` stores of a run in progress: every turn but an assistant turn whose calls await their results. */
export function persistSettledTurns(run: RunContext): Promise<void> {
  const last = run.turns.at(-1)
  const waiting = last?.role === 'assistant' && last.content.some(block => block.type === 'tool_call')
  return persistNewTurns(run, waiting ? run.turns.length - 1 : run.turns.length)
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

/**
 * Inputs nested past the depth cap, or that are no object at all, become
 * invalid-input markers before the turn is recorded or answered: providers
 * already do this for the arguments they parse, but one that hands the loop
 * ready-made values (a host's own provider passing a server's `null` or
 * `[1, 2]` through) is checked here, so no such value reaches the session,
 * the wire or a tool. Before, `null` threw a `TypeError` out of the run and a
 * list ended it with a `SessionStoreError`.
 */
function boundedInput(input: unknown): Record<string, unknown> {
  if (typeof input === 'object' && input !== null && !Array.isArray(input))
    return refuseOverDeepInput(input as Record<string, unknown>)
  const kind = input === null ? 'null' : input === undefined ? 'nothing' : Array.isArray(input) ? 'a list' : `a ${typeof input}`
  const marker: InvalidToolInput = { raw: '', error: `arguments are not a JSON object (the provider handed over ${kind})` }
  return { [INVALID_TOOL_INPUT_KEY]: marker }
}

function boundedBlockInputs(content: SessionTurn['content']): SessionTurn['content'] {
  let bounded: SessionContentBlock[] | undefined
  content.forEach((block, index) => {
    if (block.type !== 'tool_call' && block.type !== 'server_tool_use')
      return
    const input = boundedInput(block.input)
    if (input !== block.input) {
      bounded ??= [...content]
      bounded[index] = mergeObjects(block, { input })
    }
  })
  return bounded ?? content
}

function boundedCallInputs(calls: readonly ToolCall[]): readonly ToolCall[] {
  let bounded: ToolCall[] | undefined
  calls.forEach((call, index) => {
    const input = boundedInput(call.input)
    if (input !== call.input) {
      bounded ??= [...calls]
      bounded[index] = mergeObjects(call, { input })
    }
  })
  return bounded ?? calls
}

/** Sessions and hooks keep canonical tool names; the provider returned wire names. */
function canonicalToolNames(run: RunContext, content: SessionTurn['content']): SessionTurn['content'] {
  return content.map(block =>
    block.type === 'tool_call' && run.tools.toCanonical(block.name) !== block.name
      ? mergeObjects(block, { name: run.tools.toCanonical(block.name) })
      : block)
}
