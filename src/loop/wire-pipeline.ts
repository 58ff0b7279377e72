import type { SessionMessage, SessionTurn } from '../core/content'
import type { PairingRepair } from '../errors'
import type { WireStage, WireStageContext } from '../wire/stage'
import type { RunContext } from './run-context'
import { mergeObjects } from '../core/merge-objects'
import { AgentToolPairingError } from '../errors'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { extendContext } from '../hooks/context'
import { activeLimit } from '../knobs/behavior'
import { detachView } from '../wire/detached-view'
import { createWireMemo, memoWireView, runSentStages, runWireStages } from '../wire/pipeline'
import { compactSummaryViewStage } from '../wire/stages/compact-summary-view'
import { imageBytesStage } from '../wire/stages/image-bytes'
import { pairWireView } from '../wire/stages/pairing'
import { toolNamesStage } from '../wire/stages/tool-names'
import { createContentRefCache, resolveContentRefs } from './content-refs'
import { hookTimeout, runIds } from './stream-turn'

/**
 * The wire pipeline, in order (docs/architecture/wire-pipeline.md):
 *
 * 1. base view: the recorded turns as messages (`memoWireView`);
 * 2. `VIEW_STAGES`, the built-in view stages (the compaction view; stale
 *    reads, media and thinking decay go after it, in that order);
 * 3. the run's policy stages (`run.wireStages`, in policy order);
 *    then `turn:before` and `system:transform` fire (in `prepareRequest`);
 * 4. the host's `context:transform` hook, on a detached copy;
 * 4b. the run's sent-slot policy stages (`run.sentStages`: what measures the
 *    request as sent, such as tail compaction), which may be async;
 * 5. pairing repair, with `pairing:repair` and its limits, then `ref`
 *    blocks resolved through `AgentOptions.resolveContentRef`;
 * 6. `NAME_STAGES`: each inline image under the type its bytes have (or a
 *    note when they are no image an API reads), then tool calls renamed to
 *    their wire names.
 *
 * Steps 1 to 3 are `wireView`, 4 to 6 `sendableMessages`. Every pure step runs
 * through the run's memo (`run.wireMemo`).
 */
const VIEW_STAGES: readonly WireStage[] = [compactSummaryViewStage]

/** Pure stages after pairing: what only the wire, never a hook, should see. */
const NAME_STAGES: readonly WireStage[] = [imageBytesStage, toolNamesStage]

/** Steps 1 to 3: the view host hooks are shown before the request is finished. */
export function wireView(run: RunContext): readonly SessionMessage[] {
  const memo = run.wireMemo ??= createWireMemo()
  const base = memoWireView(run.turns, memo)
  const ctx = stageContext(run)
  const view = VIEW_STAGES.length > 0 ? runWireStages(VIEW_STAGES, base, ctx, memo) : base
  return run.wireStages.length > 0 ? runWireStages(run.wireStages, view, ctx, memo) : view
}

/** Steps 4 to 6: the messages this request sends, in a new array of its own. */
export async function sendableMessages(run: RunContext, turnId: string, view: readonly SessionMessage[]): Promise<SessionMessage[]> {
  const memo = run.wireMemo ??= createWireMemo()
  let messages = view
  if (hasHookHandlers(run.hooks, 'context:transform')) {
    // The hook edits a copy: whatever it does in place reaches this request (and pairing), never the turns or the memo.
    const detached = detachView(messages)
    const ctx = extendContext(runIds(run), { turnId, messages: detached.messages })
    await callHookBounded(run.hooks, 'context:transform', ctx, { timeoutMs: hookTimeout(run), failClosed: true })
    messages = detached.restore(ctx.messages)
  }
  if (run.sentStages.length > 0)
    messages = await runSentStages(run.sentStages, messages, stageContext(run), memo)
  const paired = pairWireView(messages, memo.pairing)
  if (paired.repairs.length > 0)
    await checkRepairs(run, turnId, paired.repairs)
  // References are resolved after the view stages (media aged out of the request is never fetched) and after pairing.
  const resolved = run.resolveContentRef ? await resolveContentRefs(paired.messages, run.resolveContentRef, run.contentRefs ??= createContentRefCache()) : paired.messages
  const named = runWireStages(NAME_STAGES, resolved, stageContext(run), memo)
  return named.slice()
}

/** What `previewMessages` reads: the turns, the policy stages and the stage context of a run (live or prospective). */
export interface WirePreviewSource {
  readonly turns: readonly SessionTurn[]
  readonly wireStages: readonly WireStage[]
  readonly ctx: WireStageContext
}

/**
 * The messages the next request would send, from the pure steps only (base
 * view, built-in and policy stages, pairing repair, tool names): no hook runs,
 * so `context:transform` is not applied and no repair is announced. A fresh
 * memo is used, so a live run's memo is left alone.
 */
export function previewMessages(source: WirePreviewSource): SessionMessage[] {
  const memo = createWireMemo()
  const base = memoWireView(source.turns, memo)
  const view = VIEW_STAGES.length > 0 ? runWireStages(VIEW_STAGES, base, source.ctx, memo) : base
  const staged = source.wireStages.length > 0 ? runWireStages(source.wireStages, view, source.ctx, memo) : view
  return runWireStages(NAME_STAGES, pairWireView(staged).messages, source.ctx, memo).slice()
}

/** The stage context of `run`'s next request. */
export function nextStageContext(run: RunContext): WireStageContext {
  return { turn: run.turnCount + 1, providerName: run.provider.name, model: run.model, toolWireName: run.tools.toWire }
}

/**
 * Repairs change this request only, never the recorded turns; each is
 * announced on `pairing:repair`. With `strictToolPairing` the run fails
 * instead, and `maxPairingRepairsPerTurn` fails a run whose history needs
 * more repairs than any healthy one would (a provider reusing ids, say).
 */
async function checkRepairs(run: RunContext, turnId: string, repairs: readonly PairingRepair[]): Promise<void> {
  if (hasHookHandlers(run.hooks, 'pairing:repair')) {
    for (const repair of repairs)
      await callHookBounded(run.hooks, 'pairing:repair', mergeObjects(runIds(run), { turnId, repair }), { timeoutMs: hookTimeout(run), failClosed: false })
  }
  if (run.behavior.strictToolPairing)
    throw new AgentToolPairingError(`The conversation needs ${repairs.length} tool pairing repair(s) and strictToolPairing is on`, repairs)
  const max = activeLimit(run.behavior.maxPairingRepairsPerTurn)
  if (max !== undefined && repairs.length > max)
    throw new AgentToolPairingError(`The conversation needs ${repairs.length} tool pairing repairs, more than maxPairingRepairsPerTurn (${max})`, repairs)
}

/** One literal per call: the stages read a handful of fields, and the turn changes every time. */
function stageContext(run: RunContext): WireStageContext {
  return { turn: run.turnCount, providerName: run.provider.name, model: run.model, toolWireName: run.tools.toWire, contextWindow: run.contextWindow, turnIdOf: run.wireMemo?.turnIdOf, maxMediaPerRequest: run.provider.capabilities?.maxMediaPerRequest }
}
