import type { SessionContentBlock } from '../core/content'
import type { ToolOutcome, ToolOutput } from '../core/tool-io'
import type { AgentBehavior } from '../knobs/behavior'
import type {
  BatchCall,
  BehaviorPolicy,
  CallAnswer,
  CallDecision,
  GatedCall,
  InjectedMessage,
  PhaseResult,
  PolicyEvent,
  PolicyRunView,
  PolicyState,
  PolicyToolPlan,
  PromptSource,
  ProviderErrorDecision,
  RequestPatch,
  RequestPhaseContext,
  StopResult,
  TurnDecision,
  TurnPhaseContext,
} from '../policies/policy'
import type { ToolMap } from '../tools/types'
import type { SentWireStage, WireStage } from '../wire/stage'
import type { RunState } from './run-state'
import type { WallDeadline } from './wall-deadline'
import { mergeObjects } from '../core/merge-objects'
import { pushAll } from '../core/push-all'
import { AgentContextExceededError, AgentProviderError } from '../errors'
import { isSentStage } from '../wire/stage'
import { POLICY_PHASES } from './policy-order'
import { assertPolicyState } from './run-state'

export { orderPolicies } from './policy-order'

/**
 * The policy runner: it calls the policies' phases in order and folds what
 * they return with one written precedence, so the loop and the dispatcher
 * only read a verdict. Precedence, highest first: fail and abort (the first
 * one ends the phase), stop, block, substitute, steer. A turn takes at most
 * one continuation. See docs/architecture/policies.md.
 */

/** The phases a run's enabled policies take part in, each list in policy order (decided once at run start). */
export interface PolicyPhases {
  readonly request: readonly BehaviorPolicy[]
  readonly prompt: readonly BehaviorPolicy[]
  readonly gateBatch: readonly BehaviorPolicy[]
  readonly gateCall: readonly BehaviorPolicy[]
  readonly result: readonly BehaviorPolicy[]
  readonly afterTurn: readonly BehaviorPolicy[]
  readonly providerError: readonly BehaviorPolicy[]
  readonly runEnd: readonly BehaviorPolicy[]
}

/** What the runner needs of a run: the view policies read, the knobs, the enabled phases and the state. */
export interface PolicyHost extends PolicyRunView {
  readonly behavior: Readonly<AgentBehavior>
  readonly policyPhases: PolicyPhases
  readonly state: RunState
  /** Aborts the run (an `abort` decision). */
  readonly abort: (reason?: unknown) => void
  /** The `maxWallMs` cap, which bounds a phase that answers with a promise. */
  readonly wall?: WallDeadline
}

/**
 * A phase was cut before it answered: the run's signal aborted (a cancel,
 * `hardWallMs`) or the `maxWallMs` cap ran out (which aborts the run too).
 * The loop then ends the run as aborted; it never reaches a caller of `run()`.
 */
export class PhaseInterruptedError extends Error {
  constructor(readonly phase: string, readonly policy: string) {
    super(`The ${phase} phase of policy "${policy}" was cut: the run was aborted or ran out of time`)
    this.name = 'PhaseInterruptedError'
  }
}

/**
 * Wait for a phase that answered with a promise, but only while the run
 * lives: a phase that never settles (a host policy's bug, a write to a
 * stalled mount) must not hold the run. Raced against the run's signal and
 * the `maxWallMs` cap; a phase that answers synchronously never gets here.
 */
async function settle<T>(host: PolicyHost, phase: string, policy: BehaviorPolicy, work: PromiseLike<T>): Promise<T> {
  const signal = host.signal
  if (signal.aborted)
    throw new PhaseInterruptedError(phase, policy.name)
  const bounded = host.wall ? host.wall.bound(work) : work
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new PhaseInterruptedError(phase, policy.name))
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([bounded, aborted])
  }
  catch (error) {
    // The cap cut it (and aborted the run), or the phase failed because the run was aborted under it.
    if (signal.aborted)
      throw error instanceof PhaseInterruptedError ? error : new PhaseInterruptedError(phase, policy.name)
    throw error
  }
  finally {
    signal.removeEventListener('abort', onAbort!)
  }
}

/** What `activatePolicies` sets up for one run. */
export interface ActivatedPolicies {
  readonly phases: PolicyPhases
  /** Each enabled policy's state, by name: what goes on `RunState.policies`. */
  readonly policies: Record<string, PolicyState>
  readonly wireStages: readonly WireStage[]
  /** The policies' sent-slot stages (after `context:transform`), in policy order. */
  readonly sentStages: readonly SentWireStage[]
  /** The enabled policies that register run hooks (`BehaviorPolicy.hooks`), in order. */
  readonly withHooks: readonly BehaviorPolicy[]
}

const PHASES = POLICY_PHASES

function emptyPhases(): Record<(typeof PHASES)[number], BehaviorPolicy[]> {
  return { request: [], prompt: [], gateBatch: [], gateCall: [], result: [], afterTurn: [], providerError: [], runEnd: [] }
}

/** No policy in any phase (a run before its policies are activated). */
export const NO_PHASES: PolicyPhases = Object.freeze(emptyPhases())

/**
 * Set up ordered policies for one run: ask each whether it is on, seed the
 * state of those that are (or take it from `restored`, the policy states of
 * a run this one continues), collect their wire
 * stages, and list them per phase so a phase nobody uses costs one length check.
 */
export function activatePolicies(
  ordered: readonly BehaviorPolicy[],
  behavior: Readonly<AgentBehavior>,
  view: PolicyRunView,
  restored?: Readonly<Record<string, PolicyState>>,
): ActivatedPolicies {
  const phases = emptyPhases()
  const states: Record<string, PolicyState> = {}
  const wireStages: WireStage[] = []
  const sentStages: SentWireStage[] = []
  const withHooks: BehaviorPolicy[] = []
  for (const policy of ordered) {
    if (policy.enabled && !policy.enabled(behavior, view))
      continue
    const initial = restored && Object.hasOwn(restored, policy.name)
      ? restored[policy.name]
      : policy.initialState ? policy.initialState(behavior) : null
    assertPolicyState(policy.name, initial)
    states[policy.name] = initial
    for (const stage of policy.wireStages?.(behavior) ?? []) {
      if (isSentStage(stage))
        sentStages.push(stage)
      else
        wireStages.push(stage)
    }
    if (policy.hooks)
      withHooks.push(policy)
    for (const phase of PHASES) {
      if (policy[phase])
        phases[phase].push(policy)
    }
  }
  return { phases, policies: states, wireStages, sentStages, withHooks }
}

/**
 * Fire a policy's events in order, through the same `run.emit` a policy may
 * call itself, so both ways reach the bus with the run's ids and the same
 * bound on awaited hooks.
 */
async function announce(host: PolicyHost, events: readonly PolicyEvent[]): Promise<void> {
  for (const event of events)
    await host.emit(event.hook, event.context as never)
}

/**
 * The tools the policies bring to a run (`BehaviorPolicy.tools`), keyed by
 * name. A name taken twice, or already used by the run's own tools, is a
 * `TypeError`: one of the two would silently shadow the other.
 */
export function policyTools(ordered: readonly BehaviorPolicy[], behavior: Readonly<AgentBehavior>, plan: PolicyToolPlan): ToolMap | undefined {
  let tools: ToolMap | undefined
  const taken = new Set(Object.values(plan.tools).map(def => def.spec.name))
  for (const policy of ordered) {
    const own = policy.tools?.(behavior, plan)
    if (!own)
      continue
    for (const def of Object.values(own)) {
      const name = def.spec.name
      if (taken.has(name) || (tools && name in tools))
        throw new TypeError(`Policy "${policy.name}" brings a tool named "${name}", but the run already has a tool of that name; rename one of them`)
      tools = mergeObjects(tools, { [name]: def })
    }
  }
  return tools
}

function take<D>(host: PolicyHost, policy: BehaviorPolicy, result: PhaseResult<D, PolicyState> | undefined | void): D | undefined {
  if (!result)
    return undefined
  if (result.state !== undefined)
    setState(host, policy, result.state)
  return result.decision
}

/** How many policy states each run state took since it was made (a policy may return its own object changed in place). */
const stateWrites = new WeakMap<RunState, number>()

/** How many times a policy returned a state for this run state: what a checkpoint compares to know the policies moved. */
export function policyStateWrites(state: RunState): number {
  return stateWrites.get(state) ?? 0
}

/** A new state is checked once, when a policy returns it (most phases return none). */
function setState(host: PolicyHost, policy: BehaviorPolicy, state: unknown): void {
  assertPolicyState(policy.name, state)
  stateWrites.set(host.state, policyStateWrites(host.state) + 1)
  host.state.policies[policy.name] = state
}

function stateOf(host: PolicyHost, policy: BehaviorPolicy): PolicyState {
  return host.state.policies[policy.name]
}

/** The request fields a patch may touch, as the loop's request carries them. */
export interface PatchableRequest {
  model: string
  system: string
  maxTokens?: number
  tools: RequestPhaseContext<PolicyState>['request']['tools']
  thinkingBudget?: number
}

// Phase contexts below are written out as literals, never spread from a shared base: V8 builds a spread
// object through a slow path, and the after-turn context is built for every policy on every turn.

/** Run the request phase: each policy sees the request as the earlier ones patched it. */
export async function adjustRequest<R extends PatchableRequest>(host: PolicyHost, turn: number, request: R): Promise<R> {
  let current = request
  for (const policy of host.policyPhases.request) {
    const returned = policy.request!({ run: host, behavior: host.behavior, state: stateOf(host, policy), turn, request: current })
    const result = isThenable(returned) ? await settle(host, 'request', policy, returned) : returned
    const patch: RequestPatch | undefined = take(host, policy, result)
    if (result?.events?.length)
      await announce(host, result.events)
    if (!patch)
      continue
    current = { ...current }
    if (patch.system !== undefined)
      current.system = patch.system
    if (patch.maxTokens !== undefined)
      current.maxTokens = patch.maxTokens
    if (patch.thinkingBudget !== undefined)
      current.thinkingBudget = patch.thinkingBudget
    if (patch.tools !== undefined)
      current.tools = [...patch.tools]
  }
  return current
}

const CALL_RANK: Record<CallDecision['type'], number> = { substitute: 1, block: 2, abort: 3 }

/** Fold two call decisions: the higher kind wins, and of two of the same kind the earlier one stays. */
export function foldCallDecision(earlier: CallDecision | undefined, later: CallDecision | undefined): CallDecision | undefined {
  if (!later)
    return earlier
  if (!earlier)
    return later
  return CALL_RANK[later.type] > CALL_RANK[earlier.type] ? later : earlier
}

/**
 * Run the batch gate over every call of one assistant turn, policy by policy,
 * before any call runs. Each policy sees what the earlier ones (and the loop's
 * own refusals) decided per call. Returns the folded decision per call.
 */
export async function gateBatch(host: PolicyHost, turnId: string, calls: readonly BatchCall[]): Promise<(CallDecision | undefined)[]> {
  const decided = calls.map(call => call.decided)
  for (const policy of host.policyPhases.gateBatch) {
    const view = calls.map((call, index) => decided[index] === call.decided ? call : mergeObjects(call, { decided: decided[index] }))
    const returned = policy.gateBatch!({ run: host, behavior: host.behavior, state: stateOf(host, policy), turnId, calls: view })
    const result = isThenable(returned) ? await settle(host, 'gateBatch', policy, returned) : returned
    if (!result)
      continue
    if (result.state !== undefined)
      setState(host, policy, result.state)
    if (result.events?.length)
      await announce(host, result.events)
    result.decisions?.forEach((decision, index) => {
      if (index < decided.length)
        decided[index] = foldCallDecision(decided[index], decision)
    })
  }
  return decided
}

/** Run the per-call gate for one call, right before it would run. */
export async function gateCall(host: PolicyHost, turnId: string, call: GatedCall, decided?: CallDecision): Promise<CallDecision | undefined> {
  let verdict = decided
  for (const policy of host.policyPhases.gateCall) {
    const returned = policy.gateCall!({ run: host, behavior: host.behavior, state: stateOf(host, policy), turnId, call, decided: verdict })
    const result = isThenable(returned) ? await settle(host, 'gateCall', policy, returned) : returned
    const decision = take(host, policy, result)
    if (result?.events?.length)
      await announce(host, result.events)
    verdict = foldCallDecision(verdict, decision)
  }
  return verdict
}

/** Run the prompt phase: each policy sees the content as the earlier ones left it, and may replace it. */
export async function adjustPrompt(host: PolicyHost, source: PromptSource, content: SessionContentBlock[]): Promise<SessionContentBlock[]> {
  let current = content
  for (const policy of host.policyPhases.prompt) {
    const returned = policy.prompt!({ run: host, behavior: host.behavior, state: stateOf(host, policy), source, content: current })
    const replace = take(host, policy, isThenable(returned) ? await settle(host, 'prompt', policy, returned) : returned)
    if (replace)
      current = [...replace.content]
  }
  return current
}

/** Run the result phase for one call: each policy observes the result, and may replace it for the ones after it. */
export async function observeResult(
  host: PolicyHost,
  turnId: string,
  call: GatedCall,
  answer: { output: ToolOutput, isError: boolean, outcome?: ToolOutcome, answer: CallAnswer },
  check: (output: ToolOutput) => { output: ToolOutput, isError?: boolean },
): Promise<{ output: ToolOutput, isError: boolean }> {
  let { output, isError } = answer
  for (const policy of host.policyPhases.result) {
    const returned = policy.result!({ run: host, behavior: host.behavior, state: stateOf(host, policy), turnId, call, result: output, isError, outcome: answer.outcome, answer: answer.answer })
    // A phase that answers synchronously takes effect at once: results of parallel calls then
    // cannot interleave between its reading the state and its next state being stored.
    const result = isThenable(returned) ? await settle(host, 'result', policy, returned) : returned
    const replace = take(host, policy, result)
    if (result?.events?.length)
      await announce(host, result.events)
    if (!replace)
      continue
    const checked = check(replace.result)
    output = checked.output
    isError = replace.isError === true || checked.isError === true
  }
  return { output, isError }
}

/** What the after-turn phase decided, folded. */
export interface TurnVerdict {
  /** End the run with this reason (a stop, or `'aborted'`). */
  readonly end?: 'aborted' | TurnDecisionStop
  /** The stats fields the winning stop sets, if it set any. */
  readonly result?: StopResult
  /** Go on although the model called no tools. */
  readonly keepGoing: boolean
  /** Messages to join the next user turn, in decision order. */
  readonly messages: readonly InjectedMessage[]
}

type TurnDecisionStop = Extract<TurnDecision, { type: 'stop' }>['reason']

/** The facts the after-turn phase reads about one turn. */
export type TurnFacts = Omit<TurnPhaseContext<PolicyState>, 'run' | 'behavior' | 'state' | 'decided'>

/**
 * Run the after-turn phase and fold its decisions. A `fail` throws its error
 * and an `abort` aborts the run, both at once (no later policy runs); a stop
 * ends the run at this boundary (later policies still run, and see it); of
 * the continuations, the first one wins and later loop-written ones are
 * dropped, while a message a person queued always joins. `earlier` is
 * where the fold starts (the loop passes `'aborted'` for an aborted run).
 */
export async function decideAfterTurn(host: PolicyHost, facts: TurnFacts, earlier: { end?: TurnVerdict['end'], keepGoing?: boolean } = {}): Promise<TurnVerdict> {
  let end = earlier.end
  let stopResult: StopResult | undefined
  let keepGoing = earlier.keepGoing === true
  const messages: InjectedMessage[] = []
  for (const policy of host.policyPhases.afterTurn) {
    const returned = policy.afterTurn!({
      run: host,
      behavior: host.behavior,
      state: stateOf(host, policy),
      turnId: facts.turnId,
      turn: facts.turn,
      assistant: facts.assistant,
      toolResults: facts.toolResults,
      usage: facts.usage,
      finishReason: facts.finishReason,
      decided: { ending: end !== undefined, continues: keepGoing },
    })
    // Runs every turn: a policy that answers synchronously (most do, most turns) costs no microtask.
    const result = isThenable(returned) ? await settle(host, 'afterTurn', policy, returned) : returned
    const decisions = take<TurnDecision | readonly TurnDecision[]>(host, policy, result)
    if (result?.events?.length)
      await announce(host, result.events)
    if (!decisions)
      continue
    for (const decision of Array.isArray(decisions) ? decisions as readonly TurnDecision[] : [decisions as TurnDecision]) {
      switch (decision.type) {
        case 'fail':
          throw decision.error
        case 'abort':
          host.abort(decision.reason)
          return { end: 'aborted', keepGoing: false, messages: [] }
        case 'stop':
          if (end === undefined) {
            end = decision.reason
            stopResult = decision.result
          }
          break
        case 'steer':
          if (decision.continue && keepGoing && !decision.message.queued)
            break
          messages.push(decision.message)
          keepGoing ||= decision.continue === true
          break
      }
    }
  }
  return { end, ...(stopResult ? { result: stopResult } : {}), keepGoing: end === undefined && keepGoing, messages: end === undefined ? messages : [] }
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function'
}

/** Whether the provider-error phase may see this error: a classified provider failure. */
export function isProviderFailure(error: unknown): error is AgentProviderError | AgentContextExceededError {
  return error instanceof AgentProviderError || error instanceof AgentContextExceededError
}

/**
 * Run the provider-error phase for a turn that failed for good. Returns
 * `'retry'` (run the turn again; granted once per turn, and the retrying
 * policies' messages are added to `messages`), a stop reason, or
 * `undefined` to let the error end the run as it would without policies.
 * A `fail` throws its error; an `abort` aborts the run and returns `'aborted'`.
 */
export async function decideProviderError(
  host: PolicyHost,
  turn: number,
  error: AgentProviderError | AgentContextExceededError,
  retried: boolean,
  messages?: InjectedMessage[],
): Promise<'retry' | TurnDecisionStop | 'aborted' | undefined> {
  const kind = error instanceof AgentProviderError ? error.kind : 'context_exceeded'
  let stop: TurnDecisionStop | undefined
  let retry = false
  const joining: InjectedMessage[] = []
  for (const policy of host.policyPhases.providerError) {
    const returned = policy.providerError!({ run: host, behavior: host.behavior, state: stateOf(host, policy), turn, error, kind, retried })
    const result = isThenable(returned) ? await settle(host, 'providerError', policy, returned) : returned
    const decision: ProviderErrorDecision | undefined = take(host, policy, result)
    if (result?.events?.length)
      await announce(host, result.events)
    if (!decision)
      continue
    if (decision.type === 'fail')
      throw decision.error
    if (decision.type === 'abort') {
      host.abort(decision.reason)
      return 'aborted'
    }
    if (decision.type === 'stop') {
      stop ??= decision.reason
    }
    else if (decision.type === 'retry' && !retried) {
      retry = true
      if (decision.message)
        joining.push(decision.message)
    }
  }
  if (stop === undefined && retry && messages)
    pushAll(messages, joining)
  return stop ?? (retry ? 'retry' : undefined)
}
