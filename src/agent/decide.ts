/**
 * `agent.decide` and `ctx.decide`: check the request, pick the provider and
 * model, send one structured call bounded by a timeout and the caller's (and
 * the run's) signal, check the answers, fire `decision:start` / `decision:end`,
 * and hand back a `DecisionOutcome`. Nothing here throws unless the caller
 * asked for it (`{ throw: true }`).
 */

import type { AgentClock } from '../core/clock'
import type { RunEffects } from '../core/effects'
import type { AgentDecide, DecideOptions, DecisionAnswer, DecisionEndHookContext, DecisionFailure, DecisionOutcome, DecisionRecord, DecisionReply, DecisionRequest, DecisionStartHookContext, DecisionUsage, ProviderDecisions } from '../decisions/types'
import type { AgentHookBus } from '../hooks/bus'
import type { ModelCatalogLayers } from '../providers/catalog/types'
import type { Provider } from '../providers/types'
import { mergeObjects } from '../core/merge-objects'
import { startTimer } from '../core/timer'
import { debugLog } from '../debug'
import { answerReason, answerSchema, answerTokenBudget, DECISION_SYSTEM_PROMPT, decisionContent, inputKind, parseAnswers, readDecisionRequest } from '../decisions/questions'
import { ClassifiedError, DecisionError } from '../errors'
import { callHookBounded } from '../hooks/bus'
import { setContextBase } from '../hooks/context'
import { BEHAVIOR_DEFAULTS } from '../knobs/behavior'
import { loadBundledModels } from '../providers/catalog/bundled'
import { fillEstimatedCost } from '../providers/catalog/cost'

/** Agent-level configuration for decisions (`AgentOptions.decisions`). */
export interface AgentDecisionsOptions {
  /**
   * Provider to send decisions to. Default: the first of `AgentOptions.provider`
   * that implements `decisions` and can answer now (usable credentials), else
   * the first that implements `decisions`.
   */
  provider?: Provider
  /** Default decision model. Default: the provider's `decisions.defaultModel`. */
  model?: string
  /** Default wall-clock cap in ms. Default: 5000. */
  timeoutMs?: number
}

/** The wall-clock cap of a decision when neither the request nor the agent sets one. */
export const DEFAULT_DECISION_TIMEOUT_MS = 5000

/** What a `ctx.decide` inherits from the run it was made in. */
export interface DecisionBinding {
  runId: string
  /** The run's signal: aborting the run cancels its decisions. */
  signal: AbortSignal
  /** The run's effects: its decisions are model calls of the run. */
  effects: RunEffects
  /** Called once per finished decision, in order, so the run can record it. */
  record: (entry: DecisionRecord) => void
}

export interface DecisionEngineOptions {
  providers: readonly Provider[]
  options?: AgentDecisionsOptions
  hooks: AgentHookBus
  clock: AgentClock
  /** The agent's effects, for decisions made outside a run. */
  effects: RunEffects
  catalogs?: ModelCatalogLayers
  /** Per-handler bound of the decision hooks. Default: the hook watchdog's default. */
  hookTimeoutMs?: number
}

/** The agent's decision maker: the unbound `agent.decide`, and `bind` for a run's `ctx.decide`. */
export interface DecisionEngine {
  readonly decide: AgentDecide
  bind: (binding: DecisionBinding) => AgentDecide
}

/** Reasons a classified provider error maps to; the rest are `error`. */
const REASON_BY_KIND: Partial<Record<ClassifiedError['kind'], DecisionFailure['reason']>> = {
  auth: 'auth',
  rate_limit: 'rate_limited',
  overloaded: 'rate_limited',
  quota: 'quota',
  invalid_request: 'invalid',
  context_exceeded: 'invalid',
  not_found: 'unavailable',
  unsupported: 'unsupported',
  timeout: 'timeout',
  aborted: 'aborted',
}

/** Build the agent's decision maker. */
export function createDecisionEngine(engine: DecisionEngineOptions): DecisionEngine {
  // Models a provider answered 404 for: `available` stops claiming them, and later calls fail fast.
  const missingModels = new WeakMap<ProviderDecisions, Set<string>>()

  const select = (): { provider: Provider, decisions: ProviderDecisions } | undefined => {
    const chosen = engine.options?.provider
    if (chosen)
      return chosen.decisions ? { provider: chosen, decisions: chosen.decisions } : undefined
    const capable = engine.providers.filter(provider => provider.decisions !== undefined)
    const ready = capable.find(provider => provider.decisions!.canAnswer()) ?? capable[0]
    return ready ? { provider: ready, decisions: ready.decisions! } : undefined
  }

  const available = (): boolean => {
    const selected = select()
    if (!selected || !selected.decisions.canAnswer())
      return false
    const model = engine.options?.model ?? selected.decisions.defaultModel
    return !missingModels.get(selected.decisions)?.has(model)
  }

  async function run(raw: DecisionRequest, binding: DecisionBinding | undefined): Promise<DecisionOutcome> {
    const effects = binding?.effects ?? engine.effects
    const decisionId = engine.clock.randomUUID()
    const startedAt = await engine.clock.now()
    const began = effects.now()
    // The caller's request is read once, here; everything below uses the copy.
    const read = readDecisionRequest(raw)
    const questionNames = read.ok ? Object.keys(read.request.questions) : read.questionNames
    const start: DecisionStartHookContext = {
      decisionId,
      ...(binding ? { runId: binding.runId } : {}),
      questionNames,
      inputKind: read.ok ? inputKind(read.request.input) : read.inputKind,
      startedAt,
    }
    // Set once the request is read: the decision's timeout and signals also bound its hooks.
    let call: ReturnType<typeof cancellation> | undefined
    const finish = async (outcome: DecisionOutcome): Promise<DecisionOutcome> => {
      const durationMs = Math.max(0, effects.now() - began)
      const end: DecisionEndHookContext = outcome.ok
        ? mergeObjects(start, { ok: true, durationMs, answers: outcome.answers, usage: outcome.usage, provider: outcome.provider, model: outcome.model })
        : mergeObjects(start, { ok: false, durationMs, reason: outcome.reason, message: outcome.message })
      await fire(engine, 'decision:end', end, call?.aborted)
      binding?.record(recordOf(start, end, outcome))
      return outcome
    }
    const fail = (reason: DecisionFailure['reason'], message: string, extra: Partial<DecisionFailure> = {}): DecisionFailure =>
      ({ ok: false, decisionId, reason, message, ...(start.provider ? { provider: start.provider } : {}), ...(start.model ? { model: start.model } : {}), ...extra })

    if (!read.ok) {
      await fire(engine, 'decision:start', start)
      return finish(fail('invalid', `Invalid decision request: ${read.problem}`))
    }
    const request = read.request
    const timeoutMs = request.timeoutMs ?? engine.options?.timeoutMs ?? DEFAULT_DECISION_TIMEOUT_MS
    const cancel = cancellation(timeoutMs, [request.signal, binding?.signal])
    call = cancel
    try {
      const selected = select()
      if (selected) {
        start.provider = selected.provider.name
        start.model = request.model ?? engine.options?.model ?? selected.decisions.defaultModel
      }
      // A hook that never settles holds the decision no longer than its timeout or its signal allow.
      await fire(engine, 'decision:start', start, cancel.aborted)
      if (!selected)
        return await finish(fail('unavailable', 'No provider of this agent can make decisions'))
      if (!selected.decisions.canAnswer())
        return await finish(fail('unavailable', `Provider "${selected.provider.name}" has no usable credentials for decisions`))
      const model = start.model!
      if (missingModels.get(selected.decisions)?.has(model))
        return await finish(fail('unavailable', `Model "${model}" is not available on provider "${selected.provider.name}"`))

      try {
        if (cancel.signal.aborted)
          return await finish(fail(cancel.timedOut() ? 'timeout' : 'aborted', cancel.message()))
        const body = {
          model,
          system: DECISION_SYSTEM_PROMPT,
          messages: [{ role: 'user' as const, content: decisionContent(request.input, request.questions) }],
          schema: answerSchema(request.questions),
          maxTokens: answerTokenBudget(questionNames.length),
        }
        const modelCall = { provider: selected.provider.name, model, ...(binding ? { runId: binding.runId } : {}), id: decisionId, attempt: 1, body }
        const reply = await Promise.race([
          effects.model('decision', modelCall, async () => selected.decisions.decide(mergeObjects(body, { signal: cancel.signal }))),
          cancel.aborted,
        ])
        // Pricing the reply reads the bundled model data, loaded on first use.
        await loadBundledModels()
        return await finish(answered(reply, request, selected.provider.name, decisionId, engine.catalogs))
      }
      catch (error) {
        if (cancel.signal.aborted)
          return await finish(fail(cancel.timedOut() ? 'timeout' : 'aborted', cancel.message(), errorField(error)))
        const reason = error instanceof ClassifiedError ? REASON_BY_KIND[error.kind] ?? 'error' : 'error'
        if (error instanceof ClassifiedError && error.kind === 'not_found') {
          const missing = missingModels.get(selected.decisions) ?? new Set<string>()
          missing.add(model)
          missingModels.set(selected.decisions, missing)
        }
        return await finish(fail(reason, error instanceof Error ? error.message : String(error), errorField(error)))
      }
    }
    finally {
      cancel.dispose()
    }
  }

  const make = (binding: DecisionBinding | undefined): AgentDecide => {
    const decide = async (request: DecisionRequest, options?: DecideOptions) => {
      const outcome = await run(request, binding)
      if (!outcome.ok && options?.throw === true)
        throw new DecisionError(outcome)
      return outcome
    }
    Object.defineProperty(decide, 'available', { get: available, enumerable: true })
    return decide as unknown as AgentDecide
  }

  return { decide: make(undefined), bind: make }
}

/** A success from the provider's reply, or `invalid` when the answers do not fit the questions. */
function answered(reply: DecisionReply, request: DecisionRequest, providerName: string, decisionId: string, catalogs: ModelCatalogLayers | undefined): DecisionOutcome {
  const usage = withCost(reply, providerName, catalogs)
  const served = { provider: providerName, model: reply.model }
  const body = reply.body
  if (body.type === 'malformed')
    return { ok: false, decisionId, reason: 'invalid', message: `Malformed decision answer: ${answerReason(body.message)}`, ...served }
  let answers: Record<string, DecisionAnswer>
  if (body.type === 'refusal') {
    // The model declined the whole request: every question comes back as a refusal, with its words.
    // Cut once, not per question: a refusal of megabytes would otherwise be copied into each.
    const reason = answerReason(body.message)
    answers = Object.fromEntries(Object.keys(request.questions).map(name => [name, { kind: 'refusal', reason }]))
  }
  else {
    const parsed = parseAnswers(body.value, request.questions)
    if (!parsed.ok)
      return { ok: false, decisionId, reason: 'invalid', message: `Malformed decision answer: ${parsed.problem}`, ...served }
    answers = parsed.answers
  }
  return { ok: true, decisionId, answers, ...served, ...(reply.id ? { id: reply.id } : {}), usage } as DecisionOutcome
}

/** The reply's usage, its cost filled from the model catalog when the provider reported none. */
function withCost(reply: DecisionReply, providerName: string, catalogs: ModelCatalogLayers | undefined): DecisionUsage {
  if (reply.usage.cost !== undefined)
    return { ...reply.usage }
  const filled = fillEstimatedCost({ input: reply.usage.input, output: reply.usage.output, modelId: reply.model }, providerName, catalogs)
  return { input: reply.usage.input, output: reply.usage.output, ...(filled.cost === undefined ? {} : { cost: filled.cost }) }
}

/**
 * One signal for the call: the timeout, the caller's signal and the run's. It
 * also rejects `aborted` at once, so a provider that ignored its signal cannot
 * keep the caller waiting past the cap.
 */
function cancellation(timeoutMs: number, signals: readonly (AbortSignal | undefined)[]) {
  const controller = new AbortController()
  let timedOut = false
  let message = ''
  let rejectAborted: (error: unknown) => void = () => {}
  const aborted = new Promise<never>((_, reject) => {
    rejectAborted = reject
  })
  aborted.catch(() => {})
  const cleanups: (() => void)[] = []
  const abort = (why: string, reason: unknown) => {
    if (controller.signal.aborted)
      return
    message = why
    controller.abort(reason)
    rejectAborted(reason)
  }
  const timer = startTimer(timeoutMs, () => {
    timedOut = true
    abort(`The decision did not finish within ${timeoutMs} ms`, new DOMException('decision timeout', 'TimeoutError'))
  })
  cleanups.push(() => timer.clear())
  for (const signal of signals) {
    if (!signal)
      continue
    const onAbort = () => abort('The decision was cancelled', signal.reason)
    if (signal.aborted) {
      onAbort()
      continue
    }
    signal.addEventListener('abort', onAbort, { once: true })
    cleanups.push(() => signal.removeEventListener('abort', onAbort))
  }
  return {
    signal: controller.signal,
    aborted,
    timedOut: () => timedOut,
    message: () => message,
    dispose: () => {
      for (const cleanup of cleanups) cleanup()
    },
  }
}

/**
 * Fire a decision hook; a failing or slow observer never changes the outcome.
 * The wait also ends when `cancelled` rejects (the decision's timeout or
 * signal): a hook that never settles would otherwise hold the decision for
 * `hookTimeoutMs`, five minutes by default, whatever its own limits.
 */
async function fire(engine: DecisionEngineOptions, name: 'decision:start' | 'decision:end', ctx: DecisionStartHookContext | DecisionEndHookContext, cancelled?: Promise<never>): Promise<void> {
  try {
    const hook = callHookBounded(engine.hooks, name, ctx as DecisionEndHookContext, { timeoutMs: engine.hookTimeoutMs ?? BEHAVIOR_DEFAULTS.hookTimeoutMs, failClosed: false })
    await (cancelled ? Promise.race([hook, cancelled]) : hook)
  }
  catch (error) {
    debugLog(`hook "${name}" failed`, error)
  }
}

function recordOf(start: DecisionStartHookContext, end: DecisionEndHookContext, outcome: DecisionOutcome): DecisionRecord {
  return {
    decisionId: start.decisionId,
    questionNames: start.questionNames,
    inputKind: start.inputKind,
    startedAt: start.startedAt,
    durationMs: end.durationMs,
    ...(end.provider ? { provider: end.provider } : {}),
    ...(end.model ? { model: end.model } : {}),
    outcome: outcome.ok
      ? { ok: true, answers: outcome.answers, usage: outcome.usage, ...(outcome.id ? { id: outcome.id } : {}) }
      : { ok: false, reason: outcome.reason, message: outcome.message },
  }
}

function errorField(error: unknown): { error?: Error } {
  return error instanceof Error ? { error } : {}
}

/**
 * Give every hook context `ctx.decide`, except the `decision:*` ones, right
 * before its handlers run. The property is non-enumerable, so spreading,
 * logging or persisting a context never carries it, and code that fires hooks
 * keeps building contexts without it. Done on the bus's one entry point
 * (`callHookWith`, which `callHook` and the loop's callers all go through), so
 * it costs nothing when a hook has no handlers.
 */
export function attachContextDecide(bus: AgentHookBus, current: () => AgentDecide): void {
  // Contexts the loop builds per streamed delta come from this prototype and find `decide` on it.
  setContextBase(bus, { decide: { get: current, enumerable: false, configurable: true } })
  const original = bus.callHookWith.bind(bus)
  bus.callHookWith = ((caller: never, name: string, args: unknown[]) => {
    const ctx = args?.[0]
    if (typeof ctx === 'object' && ctx !== null && !name.startsWith('decision:') && !('decide' in ctx) && Object.isExtensible(ctx))
      Object.defineProperty(ctx, 'decide', { value: current(), enumerable: false, configurable: true, writable: false })
    return original(caller, name as never, args as never)
  }) as typeof bus.callHookWith
}
