import type { ExecutionContext } from '../contexts/types'
import type { AgentClock } from '../core/clock'
import type { FrozenPromptSections, InjectedTurnReason, SessionContentBlock, SessionMessage, SessionTurn } from '../core/content'
import type { RunEffects } from '../core/effects'
import type { InjectedMessage, StopResult } from '../core/run-state'
import type { ChildRunStats, SideCallUsage, TurnFinishReason, TurnUsage } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { ToolOutcome, ToolOutput, ToolResult } from '../core/tool-io'
import type { AgentContextExceededError, AgentProviderError, ClassifiedErrorKind } from '../errors'
import type { AgentHookName, HookContext } from '../hooks/hook-map'
import type { AgentBehavior } from '../knobs/behavior'
import type { ThinkingLevel } from '../providers/thinking'
import type { Provider, ToolSpec } from '../providers/types'
import type { Session } from '../session/session'
import type { ToolMap } from '../tools/types'
import type { PolicyWireStage } from '../wire/stage'

// A policy's state, a stop's result and an injected message are run-state data, defined with it.
export type { InjectedMessage, PolicyState, StopResult } from '../core/run-state'

/** What a policy may read about the run it takes part in. */
export interface PolicyRunView {
  readonly runId: string
  readonly clock: AgentClock
  /**
   * The run's effects. A phase that does I/O (writes a file, reads one)
   * does it inside `effects.step(name, exec)`, so a journaling host records
   * it and a replay does not repeat it; ids and waits come from here too.
   */
  readonly effects: RunEffects
  /**
   * The run's signal. It aborts when the run is cancelled or runs out of
   * time; a phase that waits on I/O should hand it on, so its work stops
   * when the loop stops waiting for it.
   */
  readonly signal: AbortSignal
  /** Turns started so far in this run, including those of the legs a continued run picked up (after a pause or a crash). */
  readonly turnCount: number
  /** The conversation as recorded so far: the turns the run started from plus the ones it added (read-only). */
  readonly turns: readonly SessionTurn[]
  /** Usage of each finished turn, earlier legs of a continued run included. */
  readonly usage: readonly TurnUsage[]
  /** Usage of each side-band call made so far (`complete`), which a spend budget counts with the turns. */
  readonly sideCalls: readonly SideCallUsage[]
  /** Subagents this run's tools spawned that have finished (or failed), with the usage of their whole subtree. */
  readonly children: readonly ChildRunStats[]
  /** Start of this `run()` call on the run's clock (a continued run's wall-clock budget counts from here). */
  readonly startedAt: number
  /** The session the run records into, when the agent has one. */
  readonly session?: Session
  /** Where the run's tools run commands and touch files. */
  readonly execution: ExecutionContext
  /** The model serving the run now (a fallback changes it). */
  readonly model: string
  /**
   * The serving model's context window in tokens, when known: the
   * `contextWindow` knob, else the current model target's (the catalog
   * layers, the provider's `meta`, the bundled data). Window-relative
   * policies read it here, so every one of them resolves it the same way.
   */
  readonly contextWindow?: number
  /** The run's thinking level (`'off'` when the run sets none). */
  readonly thinking?: ThinkingLevel
  /** The provider serving the run now (a fallback changes it): its name and what it supports. */
  readonly provider?: Pick<Provider, 'name' | 'capabilities'>
  /** The run's tools: what the model is offered and which names resolve. */
  readonly tools: PolicyToolsView
  /**
   * A side-band model call (a summary, say): the request the loop sent last,
   * exactly as sent, extended with the turns recorded since and `prompt` as
   * a final user message, so it reads the prefix the provider has cached. The
   * answer is not recorded as a turn and fires no stream hooks; the caller
   * decides what to keep. Its usage is, though: it joins `sideCalls` and the
   * run's totals. It goes out the way a turn does: under the stream
   * watchdogs, with retries, moving to the next fallback target, and ended
   * by the run's abort. Throws the error that would have ended a turn when
   * the call fails for good (`AgentAbortedError` when the run was aborted).
   */
  readonly complete: (request: CompletionRequest) => Promise<CompletionResult>
  /** Fire a host event from a policy (`compact:start`, say); the run's ids are added. Handlers that throw are logged, not fatal. */
  readonly emit: <K extends AgentHookName>(event: K, context: Omit<HookContext<K>, 'runId' | 'depth' | 'parentRunId' | 'parentCallId'>) => Promise<void>
}

/**
 * The run's tool registry as a policy may read it, for a policy that has to
 * tell an unknown name from a known one or suggest what is advertised.
 */
export interface PolicyToolsView {
  /** Specs sent to the model, under their wire names (this turn's tools array). */
  readonly specs: readonly ToolSpec[]
  /** Canonical names of every registered tool, in registration order. */
  readonly names: readonly string[]
  /** The canonical name for a name the model used; unknown names come back unchanged. */
  readonly toCanonical: (wireName: string) => string
}

/**
 * The run's tools as planned before the policies add theirs, for a policy
 * whose tool is built on them (codemode's scripts call them).
 */
export interface PolicyToolPlan {
  /** The run's tools: the registry's, the MCP servers', and what lazy disclosure added. */
  readonly tools: ToolMap
  /** Wire names by canonical name. */
  readonly aliases?: Readonly<Record<string, string>>
  /** `run({ tools })` replaced the agent's tools for this run. */
  readonly replaced: boolean
  /** Canonical names lazy disclosure holds back until they are loaded. */
  readonly deferred: ReadonlySet<string>
  /** Load a held-back tool (as `tool_search` does), so a call of it is no longer refused. */
  readonly load: (name: string) => void
}

/** What a policy asks `run.complete` for. */
export interface CompletionRequest {
  /** The content of the user message appended after the conversation. */
  readonly prompt: readonly SessionContentBlock[]
  /** Output ceiling of this call, never above the run's own `maxTokens` (which applies when this is unset). */
  readonly maxTokens?: number
  /** What the call is for, recorded on its `SideCallUsage` (default `'complete'`). */
  readonly purpose?: string
  /**
   * Messages to send instead of the conversation as it would be sent now
   * (still followed by `prompt`): for a call that must fit where the
   * conversation no longer does.
   */
  readonly messages?: readonly SessionMessage[]
}

/** What `run.complete` returns: the answer's text, its usage and the model that wrote it. */
export interface CompletionResult {
  readonly text: string
  readonly usage: TurnUsage
  readonly model: string
}

/** What every phase of a policy receives: the run, its resolved knobs, and the policy's own state. */
export interface PolicyPhaseContext<S> {
  readonly run: PolicyRunView
  readonly behavior: Readonly<AgentBehavior>
  /** The policy's state as its last phase left it (its `initialState()` at first). */
  readonly state: S
}

type OwnHookName = Exclude<AgentHookName, `child:${string}`>

/** The name of an event of the agent itself (not a subagent's `child:` re-emission): what a policy may list in `events`. */
export type PolicyEventName = OwnHookName & string
type RunIdKeys = 'runId' | 'depth' | 'parentRunId' | 'parentCallId'

/**
 * An event a policy asks the runner to fire on the agent's hook bus (the
 * policy's own `<policy>:<event>` hooks). The context leaves out the run ids:
 * the runner adds them. Events fire in order, before the phase's decision
 * takes effect, so a handler hears of an abort before `agent:abort`.
 */
export type PolicyEvent = { readonly [K in OwnHookName]: { readonly hook: K, readonly context: Omit<HookContext<K>, RunIdKeys> } }[OwnHookName]

/**
 * What a phase returns: a decision (or none) and, optionally, the policy's
 * next state. Returning nothing means "no opinion, state unchanged".
 */
export interface PhaseResult<D, S> {
  readonly decision?: D
  /** Replaces the policy's state; omitted, the state stays as it was. */
  readonly state?: S
  /** Hook events to fire, in order, before the decision takes effect. */
  readonly events?: readonly PolicyEvent[]
}

/** A phase's return value, sync or async. */
export type PhaseReturn<D, S> = PhaseResult<D, S> | undefined | void | Promise<PhaseResult<D, S> | undefined | void>

/** End the run at once, as `agent.abort()` would (`stopReason: 'aborted'`). Highest precedence. */
export interface AbortDecision {
  readonly type: 'abort'
  readonly reason?: unknown
}

/** End the run by throwing this typed error (a budget crossed, a resume chain that cannot end). Ranks with abort. */
export interface FailDecision {
  readonly type: 'fail'
  readonly error: Error
}

/** End the run cleanly at this turn boundary, with this stop reason. */
export interface StopDecision {
  readonly type: 'stop'
  readonly reason: StopReason
  /** Stats fields the stop sets; only the winning stop's are used. */
  readonly result?: StopResult
}

/** Refuse one tool call; the model reads `Blocked: <reason>` as its result. */
export interface BlockDecision {
  readonly type: 'block'
  readonly reason: string
}

/** Answer one tool call with this result instead of running the tool. */
export interface SubstituteDecision {
  readonly type: 'substitute'
  readonly result: ToolOutput
  readonly isError?: boolean
}

/**
 * Put a message in front of the model at the next turn. With `continue`, it
 * also keeps the run going after a turn that called no tools (a
 * continuation); only the first continuation of a turn is honoured.
 */
export interface SteerDecision {
  readonly type: 'steer'
  readonly message: InjectedMessage
  readonly continue?: boolean
}

/** What a gate may decide about one tool call (an abort ends the whole run). */
export type CallDecision = BlockDecision | SubstituteDecision | AbortDecision

/** What a result phase may decide: replace the result the model reads. */
export interface ReplaceResultDecision {
  readonly type: 'replace'
  readonly result: ToolOutput
  readonly isError?: boolean
}

/** What the prompt phase may decide: record this content instead of what was written. */
export interface ReplaceContentDecision {
  readonly type: 'replace'
  readonly content: readonly SessionContentBlock[]
}

/** Where a user message a person wrote comes from: the run's prompt, or a message queued with `agent.steer` / `agent.followUp`. */
export type PromptSource = 'prompt' | 'steer' | 'follow-up'

/**
 * The prompt phase: a message a person wrote, before it is recorded. Media
 * that should enter the session in another form (downscaled images) is
 * replaced here, once, so every later request sends the same bytes.
 */
export interface PromptPhaseContext<S> extends PolicyPhaseContext<S> {
  readonly source: PromptSource
  readonly content: readonly SessionContentBlock[]
}

/** What the after-turn phase may decide. */
export type TurnDecision = FailDecision | AbortDecision | StopDecision | SteerDecision

/**
 * Run the failed turn again (granted once per turn). `message`, when given,
 * joins the conversation as a user turn before the retry (a compaction
 * summary, say); messages of several retrying policies join as one turn.
 */
export interface RetryDecision {
  readonly type: 'retry'
  readonly message?: InjectedMessage
}

/** What the provider-error phase may decide; no decision lets the error end the run as before. */
export type ProviderErrorDecision = FailDecision | AbortDecision | StopDecision | RetryDecision

/** Fields of the next model request a policy may change. */
export interface RequestPatch {
  readonly system?: string
  readonly maxTokens?: number
  readonly tools?: readonly ToolSpec[]
  readonly thinkingBudget?: number
}

/** The request phase: the model request about to be sent, as earlier policies left it. */
export interface RequestPhaseContext<S> extends PolicyPhaseContext<S> {
  readonly turn: number
  readonly request: Readonly<{ model: string, system: string, maxTokens?: number, tools: readonly ToolSpec[], thinkingBudget?: number }>
}

/** One tool call as a gate sees it: canonical name, parsed input. */
export interface GatedCall {
  readonly callId: string
  readonly name: string
  /** The name the model used. */
  readonly displayName: string
  readonly input: Readonly<Record<string, unknown>>
  /** Set when a tool made this call (`ToolContext.callTool`): the id of the calling tool call. */
  readonly parentToolCallId?: string
}

/** One call of a batch, with what earlier policies decided about it. */
export interface BatchCall extends GatedCall {
  /** The decision of an earlier policy (or a refusal the loop made), if any. */
  readonly decided?: CallDecision
}

/**
 * The batch gate: every tool call of one assistant turn, before any of them
 * runs; a call a tool makes (`ToolContext.callTool`) comes alone, as a batch
 * of one, with its turn's id.
 */
export interface BatchGateContext<S> extends PolicyPhaseContext<S> {
  readonly turnId: string
  readonly calls: readonly BatchCall[]
}

/** The batch gate's result: decisions by call index (`undefined` leaves a call as it is). */
export interface BatchGateResult<S> {
  readonly decisions?: readonly (CallDecision | undefined)[]
  readonly state?: S
  /** Hook events to fire, in order, before any call of the batch is answered. */
  readonly events?: readonly PolicyEvent[]
}

/** The per-call gate, at run time (an earlier call of the same batch has finished by now). */
export interface CallGateContext<S> extends PolicyPhaseContext<S> {
  readonly turnId: string
  readonly call: GatedCall
  /** An earlier policy's decision about this call, if any. */
  readonly decided?: CallDecision
}

/**
 * How a call was answered: the tool ran, or it did not and who answered in
 * its place: a policy's gate, the host's `tool:gate`, or the loop itself
 * (unknown tool, invalid input, a gate that failed, an aborted run). A
 * policy that counts calls at the batch gate reads it to give back a call a
 * later gate refused.
 */
export type CallAnswer
  = | { readonly kind: 'ran' }
    | { readonly kind: 'refused' | 'substituted', readonly by: 'policy' | 'host' | 'loop' }

/** The result phase: one call's final result, after the host's transforms. */
export interface ResultPhaseContext<S> extends PolicyPhaseContext<S> {
  readonly turnId: string
  readonly call: GatedCall
  readonly result: ToolOutput
  readonly isError: boolean
  readonly outcome?: ToolOutcome
  /** How the call was answered (before any transform or result policy rewrote the output). */
  readonly answer: CallAnswer
}

/** What earlier policies decided after this turn, so a later one can defer to them. */
export interface TurnDecidedSoFar {
  /** A stop, abort or failure was decided: the run ends at this boundary. */
  readonly ending: boolean
  /** A continuation was decided: the run goes on although the model stopped. */
  readonly continues: boolean
}

/** The after-turn phase: the turn is recorded, its tool results too. */
export interface TurnPhaseContext<S> extends PolicyPhaseContext<S> {
  readonly turnId: string
  readonly turn: number
  readonly assistant: SessionTurn
  readonly toolResults: readonly ToolResult[]
  readonly usage: TurnUsage
  readonly finishReason: TurnFinishReason
  readonly decided: TurnDecidedSoFar
}

/** The provider-error phase: a turn failed for good (retries and fallbacks spent). */
export interface ProviderErrorContext<S> extends PolicyPhaseContext<S> {
  readonly turn: number
  readonly error: AgentProviderError | AgentContextExceededError
  /** The classified kind (`'context_exceeded'` for a context overflow). */
  readonly kind: ClassifiedErrorKind
  /** Whether this turn was already retried once (a second retry is refused). */
  readonly retried: boolean
}

/**
 * The run-end phase: the run is over, whichever way it ended (its record is
 * written). A policy releases what it held for the run here; its events are
 * awaited, each bounded by `hookTimeoutMs`. Not called when the run paused
 * or was suspended (its continuation picks the states up), nor when the
 * run's policies never became active.
 */
export interface RunEndContext<S> extends PolicyPhaseContext<S> {
  /** How the run ended; absent when it failed with an error. */
  readonly stopReason?: StopReason
  /** The error the run failed with, when it did. */
  readonly error?: unknown
}

/** Fire an event on the agent's hooks without waiting for its handlers (as streaming hooks fire). */
export type PolicyHookEmit = (name: string, ctx: object) => void

/** Whether an event has a handler now (handlers may come and go during a run), so work only a listener needs can be skipped. */
export type PolicyHookListening = (name: string) => boolean

/** Hook handlers by event name (checked against the known events when the run registers them). */
export type PolicyHookHandlers = Readonly<Record<string, (ctx: any) => unknown>>

/**
 * A behavior policy: a small module that takes part in the run through named
 * phases that return decisions (values, never side effects on the loop). The
 * runner folds them with a fixed precedence; the loop knows none by name.
 * Every phase is optional; a policy whose `enabled` says no costs nothing.
 */
// The default `any` lets one list hold policies with different state types (phases take the state as a parameter).
export interface BehaviorPolicy<S = any> {
  /** Unique among the agent's policies; `after` and the run state refer to it. */
  readonly name: string
  /** Policies this one runs after, by name (checked at `createAgent`). */
  readonly after?: readonly string[]
  /**
   * The hook events this policy fires (its own, such as
   * `'repeat-guard:exceeded'`), so an agent with it accepts handlers for them
   * in its hook maps; their types are entries of `AgentEventMap`. Events of
   * the loop and the tools need no listing.
   */
  readonly events?: readonly PolicyEventName[]
  /** Checked once at run start; `false` leaves the policy out of every phase of that run. Default: on. */
  enabled?: (behavior: Readonly<AgentBehavior>, run: PolicyRunView) => boolean
  /** The policy's state at run start: plain JSON data. Default: `null`. */
  initialState?: (behavior: Readonly<AgentBehavior>) => S
  /** Wire stages this policy adds to every request of the run, collected at run start. */
  wireStages?: (behavior: Readonly<AgentBehavior>) => readonly PolicyWireStage[]
  /**
   * Tools this policy brings to the run (e.g. the final-answer tool of
   * structured output), asked once at run start before the run's tools are
   * set up, whatever `enabled` says; return nothing to add none. A name a
   * run's own tool already has is refused with a `TypeError`. Subagents do
   * not inherit them.
   */
  tools?: (behavior: Readonly<AgentBehavior>, plan: PolicyToolPlan) => ToolMap | undefined
  /**
   * Named sections this policy appends to the system prompt (a catalog of
   * skills, say), asked whenever a run is planned (once at its start, and by
   * the context breakdown between runs), whatever `enabled` says, with the
   * run's tools as the model will be offered them. They join
   * the built-in sections (tool catalog, MCP instructions), in policy order,
   * inside the prompt a run sends on every turn and a host freezes, so the
   * text must not change from one run to the next unless what it describes
   * did. A name another section already has is refused with a `TypeError`.
   */
  sections?: (behavior: Readonly<AgentBehavior>, tools: PolicyToolsView) => FrozenPromptSections | undefined
  /**
   * Handlers this policy registers on the agent's hooks for one run (only
   * when enabled), removed when the run ends. For what a phase cannot see,
   * such as a stream in flight; `emit` lets a handler fire the policy's own
   * events, and `listening` whether anyone would hear one. Closure state here
   * lives for one run and is never run state.
   */
  hooks?: (behavior: Readonly<AgentBehavior>, emit: PolicyHookEmit, listening: PolicyHookListening) => PolicyHookHandlers
  /** Adjust the next model request (a patch of its fields). */
  request?: (ctx: RequestPhaseContext<S>) => PhaseReturn<RequestPatch, S>
  /** Gate a whole batch of tool calls before any of them runs (atomic budgets). */
  gateBatch?: (ctx: BatchGateContext<S>) => BatchGateResult<S> | undefined | void | Promise<BatchGateResult<S> | undefined | void>
  /** Gate one call right before it runs. */
  gateCall?: (ctx: CallGateContext<S>) => PhaseReturn<CallDecision, S>
  /** Replace what a person wrote (the run's prompt, a steered or follow-up message) before it is recorded. */
  prompt?: (ctx: PromptPhaseContext<S>) => PhaseReturn<ReplaceContentDecision, S>
  /** Observe, or replace, one call's final result. */
  result?: (ctx: ResultPhaseContext<S>) => PhaseReturn<ReplaceResultDecision, S>
  /** Decide after a turn: continue, nudge, stop, abort or fail (one decision, or several messages). */
  afterTurn?: (ctx: TurnPhaseContext<S>) => PhaseReturn<TurnDecision | readonly TurnDecision[], S>
  /** React to a turn that failed at the provider (retry it once, stop, fail, or let it fail). */
  providerError?: (ctx: ProviderErrorContext<S>) => PhaseReturn<ProviderErrorDecision, S>
  /** The run is over: fire closing events (awaited), take no decision. */
  runEnd?: (ctx: RunEndContext<S>) => PhaseReturn<never, S>
}

/** A message the loop writes (a nudge): joins the next turn, never keeps the run going. */
export function nudge(text: string, reason: InjectedTurnReason): SteerDecision {
  return { type: 'steer', message: { content: [{ type: 'text', text, origin: 'injected' }], injected: reason } }
}

/** A continuation: keep the run going with this message although the model stopped. */
export function continueWith(text: string, reason: InjectedTurnReason): SteerDecision {
  return { type: 'steer', message: { content: [{ type: 'text', text, origin: 'injected' }], injected: reason }, continue: true }
}

/**
 * Define a policy with its state type inferred from `initialState`. The same
 * object, typed so the phases read and return that state.
 */
export function definePolicy<S = null>(policy: BehaviorPolicy<S>): BehaviorPolicy<S> {
  return policy
}
