import type { ExecutionContext } from '../contexts/types'
import type { AgentClock } from '../core/clock'
import type { SessionContentBlock, SessionTurn } from '../core/content'
import type { RunEffects } from '../core/effects'
import type { ChildRunStats, SideCallUsage, TurnFinishReason, TurnUsage } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { ToolOutcome, ToolOutput, ToolResult } from '../core/tool-io'
import type { AgentContextExceededError, AgentProviderError } from '../errors'
import type { AgentBehavior } from '../knobs/behavior'
import type { PatchableRequest, PolicyHost } from '../loop/policy-runner'
import type {
  BehaviorPolicy,
  CallAnswer,
  CallDecision,
  CompletionRequest,
  CompletionResult,
  GatedCall,
  InjectedMessage,
  PolicyState,
  PromptSource,
  StopResult,
} from '../policies/policy'
import type { ThinkingLevel } from '../providers/thinking'
import type { Provider } from '../providers/types'
import type { Session } from '../session/session'
import type { FrozenPromptSections } from '../session/system-freeze'
import type { ToolMap } from '../tools/types'
import type { PolicyWireStage } from '../wire/stage'
import { activatePlan, planRun } from '../agent/plan'
import { createProcessContext } from '../contexts/process'
import { mergeObjects } from '../core/merge-objects'
import { pushAll } from '../core/push-all'
import { createHookBus, isKnownHook } from '../hooks/bus'
import { adjustPrompt, adjustRequest, decideAfterTurn, decideProviderError, gateBatch, gateCall, NO_PHASES, observeResult } from '../loop/policy-runner'
import { servingContextWindow } from '../loop/run-context'
import { createRunState } from '../loop/run-state'
import { checkToolOutput } from '../loop/tool-output-check'
import { testEffects } from './test-effects'

/** A tool call in a script: a name and input; the id defaults to `call-<step>-<index>`. */
export interface ScriptedCall {
  readonly name: string
  readonly input?: Record<string, unknown>
  readonly id?: string
}

/** When a step happens: milliseconds since the run started, on the script's clock (default: where the last step left it). */
interface StepTiming {
  readonly elapsedMs?: number
}

/** The request phase: a request with these fields is about to be sent. */
export interface RequestStep extends StepTiming {
  readonly phase: 'request'
  readonly request?: Partial<Omit<PatchableRequest, 'model'>> & { model?: string }
}

/** The prompt phase: a person wrote this message (the run's prompt, or a queued one). */
export interface PromptStep extends StepTiming {
  readonly phase: 'prompt'
  readonly content: readonly SessionContentBlock[]
  /** Default `'prompt'`. */
  readonly source?: PromptSource
}

/** The batch gate over the calls of one assistant turn. `blocked` marks calls the loop already refused, by index. */
export interface GateBatchStep extends StepTiming {
  readonly phase: 'gateBatch'
  readonly calls: readonly ScriptedCall[]
  readonly blocked?: Readonly<Record<number, string>>
}

/** The per-call gate, right before a call runs. */
export interface GateCallStep extends StepTiming {
  readonly phase: 'gateCall'
  readonly call: ScriptedCall
  /** What an earlier policy decided about the call. */
  readonly decided?: CallDecision
}

/** The result phase: a call finished with this result. */
export interface ResultStep extends StepTiming {
  readonly phase: 'result'
  readonly call: ScriptedCall
  readonly result: ToolOutput
  readonly isError?: boolean
  readonly outcome?: ToolOutcome
  /** How the call was answered (default: the tool ran). */
  readonly answer?: CallAnswer
}

/** The after-turn phase: the model's turn ended. Each such step is one turn of the script. */
export interface AfterTurnStep extends StepTiming {
  readonly phase: 'afterTurn'
  /** The assistant's text (or give `content`). */
  readonly text?: string
  readonly content?: readonly SessionContentBlock[]
  /** Default `'stop'`. */
  readonly finishReason?: TurnFinishReason
  /** Default: no tokens, no cost. */
  readonly usage?: Partial<TurnUsage>
  readonly toolResults?: readonly ToolResult[]
  /** What earlier policies decided this turn, as the policy would see it in `decided` (default: nothing). */
  readonly decided?: { readonly stop?: StopReason, readonly continues?: boolean }
}

/** The provider-error phase: the turn failed for good with this error. */
export interface ProviderErrorStep extends StepTiming {
  readonly phase: 'providerError'
  readonly error: AgentProviderError | AgentContextExceededError
  /** Whether the turn was already retried once. */
  readonly retried?: boolean
}

/** One step of a policy script: one phase call, as the loop would make it. */
export type PolicyScriptStep = RequestStep | PromptStep | GateBatchStep | GateCallStep | ResultStep | AfterTurnStep | ProviderErrorStep

/** What the runner made of one step, by phase. */
export type PolicyScriptOutcome
  = | { readonly phase: 'request', readonly request: PatchableRequest }
    | { readonly phase: 'prompt', readonly content: readonly SessionContentBlock[] }
    | { readonly phase: 'gateBatch', readonly decisions: readonly (CallDecision | undefined)[] }
    | { readonly phase: 'gateCall', readonly decision?: CallDecision }
    | { readonly phase: 'result', readonly result: ToolOutput, readonly isError: boolean }
    | {
      readonly phase: 'afterTurn'
      /** The stop reason, or `'aborted'`, when the turn ends the run. */
      readonly end?: StopReason
      /** The stats fields the winning stop sets (`StopDecision.result`), if any. */
      readonly result?: StopResult
      readonly keepGoing: boolean
      readonly messages: readonly InjectedMessage[]
      /** The error of a `fail` decision. */
      readonly error?: Error
    }
    | { readonly phase: 'providerError', readonly verdict?: 'retry' | StopReason, readonly error?: Error, readonly messages?: readonly InjectedMessage[] }

/** A hook event the policy fired (`PhaseResult.events` or `run.emit`), with the run ids added, and the turn it was fired in. */
export interface PolicyScriptEvent {
  readonly hook: string
  readonly context: Readonly<Record<string, unknown>>
  readonly turn: number
}

/** One step's outcome, the turn it belonged to, the events the policy fired in it, and its state after it (a JSON copy). */
export type PolicyScriptStepResult = PolicyScriptOutcome & { readonly turn: number, readonly state: PolicyState, readonly events: readonly PolicyScriptEvent[] }

/** Options of `runPolicyScript`. */
export interface PolicyScriptOptions {
  /** The knobs, resolved as a run resolves them. */
  readonly behavior?: AgentBehavior
  readonly steps: readonly PolicyScriptStep[]
  /** Start from this state instead of `initialState()` (a state saved from an earlier script, say). */
  readonly state?: PolicyState
  /** Turns already played before the first step (with a restored state, where the earlier script stopped). */
  readonly turnsBefore?: number
  readonly session?: Session
  /** What `run.turns` holds (the recorded conversation). Default: none. */
  readonly turns?: readonly SessionTurn[]
  /** Where `run.execution` points. Default: a process context in the current directory. */
  readonly execution?: ExecutionContext
  /** Default: a clock at 0 that moves only with the steps' `elapsedMs`. */
  readonly clock?: AgentClock
  /** The run's effects (what a phase's `run.effects.step` goes through). Default: `testEffects()`. */
  readonly effects?: RunEffects
  /** What `run.model` says. Default `'scripted'`. */
  readonly model?: string
  /** What `run.children` holds: subagents that already finished, with their stats. Default: none. */
  readonly children?: readonly ChildRunStats[]
  /** The serving model's window the provider side knows; the `contextWindow` knob wins over it, as in a run. */
  readonly contextWindow?: number
  /**
   * Names of the tools the run registers and advertises (what `run.tools`
   * says), each with an empty schema; the policy's own tools
   * (`BehaviorPolicy.tools`) join them, as in a run. Default: none.
   */
  readonly tools?: readonly string[]
  /** What `run.thinking` says. Default `'off'`, as a run without a level. */
  readonly thinking?: ThinkingLevel
  /** What `run.provider` says (name and capabilities). Default: none. */
  readonly provider?: Pick<Provider, 'name' | 'capabilities'>
  /** Answers `run.complete` (a policy's side-band model call). Default: the call throws, as a run without a model would. */
  readonly complete?: (request: CompletionRequest) => CompletionResult | Promise<CompletionResult>
}

/** What `runPolicyScript` returns. */
export interface PolicyScriptResult {
  /** What the policy's `enabled` said; a disabled policy plays no step. */
  readonly enabled: boolean
  /** The system-prompt sections the policy adds (`BehaviorPolicy.sections`), asked as a run's plan asks, enabled or not. */
  readonly sections: FrozenPromptSections
  readonly wireStages: readonly PolicyWireStage[]
  readonly steps: readonly PolicyScriptStepResult[]
  /** The state after the last step (`undefined` when disabled). */
  readonly state?: PolicyState
  /** The reason of an `abort` decision, if one was made (the script stops there). */
  readonly abortReason?: unknown
  /** Every hook event the policy fired during the script, in order. */
  readonly events: readonly PolicyScriptEvent[]
  /** The requests the policy made through `run.complete`, in order. */
  readonly completions: readonly CompletionRequest[]
}

/**
 * Run one policy against scripted phase calls, without a model or a loop:
 * each step is the phase call the loop would make, folded by the same runner.
 * A turn is every step up to and including an `afterTurn` step; `turn` in
 * the results counts them from 1. An `abort` decision ends the script. Every
 * state the policy returns must be plain JSON (the runner checks it).
 */
export async function runPolicyScript(policy: BehaviorPolicy, options: PolicyScriptOptions): Promise<PolicyScriptResult> {
  const execution = options.execution ?? createProcessContext()
  // Planned as a run is: the same knobs, the policy's own tools and sections.
  const plan = planRun({ agent: { behavior: options.behavior, tools: scriptTools(options.tools ?? []) }, policies: [policy], execution })
  const { behavior, sections } = plan
  let elapsedMs = 0
  const clock: AgentClock = options.clock ?? { now: () => elapsedMs, randomUUID: (() => {
    let n = 0
    return () => `script-id-${++n}`
  })() }
  const abort = { aborted: false, reason: undefined as unknown }
  const controller = new AbortController()
  const hooks = createHookBus(policy.events)
  // Events reach the bus both ways a policy fires them (`PhaseResult.events`, `run.emit`); one listener records them all.
  const allEvents: PolicyScriptEvent[] = []
  let fired: Omit<PolicyScriptEvent, 'turn'>[] = []
  hooks.beforeEach((event) => {
    fired.push({ hook: event.name, context: event.args[0] as unknown as Record<string, unknown> })
  })
  const completions: CompletionRequest[] = []
  const host = {
    runId: 'policy-script',
    clock,
    effects: options.effects ?? testEffects(),
    signal: controller.signal,
    turnCount: options.turnsBefore ?? 0,
    turns: options.turns ?? [],
    usage: [] as TurnUsage[],
    sideCalls: [] as SideCallUsage[],
    children: options.children ?? [],
    startedAt: options.clock ? await options.clock.now() : 0,
    session: options.session,
    execution,
    model: options.model ?? 'scripted',
    contextWindow: servingContextWindow({ behavior, targets: [{ contextWindow: options.contextWindow }], targetIndex: 0 }),
    tools: plan.tools,
    thinking: options.thinking ?? 'off',
    provider: options.provider,
    behavior,
    policyPhases: NO_PHASES,
    state: createRunState(),
    abort: (reason?: unknown) => {
      abort.aborted = true
      abort.reason = reason
      controller.abort(reason)
    },
    complete: async (request: CompletionRequest): Promise<CompletionResult> => {
      completions.push(request)
      if (!options.complete)
        throw new Error('runPolicyScript: the policy called run.complete, and the script gives no `complete` answer')
      const answer = await options.complete(request)
      // Recorded as a run records it, so a spend budget in the same script counts it.
      host.sideCalls.push(mergeObjects(answer.usage, { purpose: request.purpose ?? 'complete', turn: host.turnCount }))
      return answer
    },
    emit: async (event, context) => {
      // A run refuses hook maps naming an event no policy lists; the script makes the policy list what it fires.
      if (!isKnownHook(hooks, event))
        throw new Error(`runPolicyScript: policy "${policy.name}" fired "${event}", which is not in its \`events\``)
      await (hooks.callHook as (name: string, context: unknown) => Promise<unknown>)(event, mergeObjects(context, { runId: 'policy-script', depth: 0 }))
    },
  } satisfies PolicyHost
  const restored = options.state === undefined ? undefined : { [policy.name]: options.state }
  const activated = activatePlan(plan, host, restored)
  if (!Object.hasOwn(activated.policies, policy.name))
    return { enabled: false, sections, wireStages: [], steps: [], events: allEvents, completions }
  Object.assign(host, { policyPhases: activated.phases })
  host.state.policies = activated.policies

  const results: PolicyScriptStepResult[] = []
  let turnOpen = false
  for (const [index, step] of options.steps.entries()) {
    if (step.elapsedMs !== undefined)
      elapsedMs = step.elapsedMs
    if (!turnOpen) {
      host.turnCount += 1
      turnOpen = true
    }
    fired = []
    const outcome = await playStep(host, step, index)
    const events = fired.map(event => (mergeObjects(event, { turn: host.turnCount })))
    pushAll(allEvents, events)
    if (step.phase === 'afterTurn')
      turnOpen = false
    results.push(mergeObjects(outcome, { turn: host.turnCount, state: jsonCopy(host.state.policies[policy.name]), events }))
    if (abort.aborted)
      break
  }
  return {
    enabled: true,
    sections,
    wireStages: [...activated.wireStages, ...activated.sentStages],
    steps: results,
    events: allEvents,
    completions,
    state: jsonCopy(host.state.policies[policy.name]),
    ...(abort.aborted ? { abortReason: abort.reason } : {}),
  }
}

type ScriptHost = PolicyHost & { turnCount: number, usage: TurnUsage[] }

async function playStep(host: ScriptHost, step: PolicyScriptStep, index: number): Promise<PolicyScriptOutcome> {
  const turnId = `turn-${host.turnCount}`
  switch (step.phase) {
    case 'request': {
      const request: PatchableRequest = { model: 'scripted', system: '', tools: [], ...step.request }
      return { phase: 'request', request: await adjustRequest(host, host.turnCount, request) }
    }
    case 'prompt':
      return { phase: 'prompt', content: await adjustPrompt(host, step.source ?? 'prompt', [...step.content]) }
    case 'gateBatch': {
      const calls = step.calls.map((call, i) => {
        const gated = gatedCall(call, `call-${index}-${i}`)
        const reason = step.blocked?.[i]
        return reason === undefined ? gated : mergeObjects(gated, { decided: { type: 'block', reason } as const })
      })
      const decisions = await gateBatch(host, turnId, calls)
      abortOn(host, decisions.find(decision => decision?.type === 'abort'))
      return { phase: 'gateBatch', decisions }
    }
    case 'gateCall': {
      const decision = await gateCall(host, turnId, gatedCall(step.call, `call-${index}`), step.decided)
      abortOn(host, decision)
      return { phase: 'gateCall', decision }
    }
    case 'result': {
      const answer = { output: step.result, isError: step.isError === true, outcome: step.outcome, answer: step.answer ?? { kind: 'ran' as const } }
      const { output, isError } = await observeResult(host, turnId, gatedCall(step.call, `call-${index}`), answer, result => checkToolOutput(result, step.call.name))
      return { phase: 'result', result: output, isError }
    }
    case 'afterTurn': {
      const usage: TurnUsage = { input: 0, output: 0, ...step.usage }
      host.usage.push(usage)
      const assistant: SessionTurn = {
        id: turnId,
        role: 'assistant',
        content: step.content ? [...step.content] : step.text === undefined ? [] : [{ type: 'text', text: step.text }],
        createdAt: await host.clock.now(),
        runId: host.runId,
        usage,
      }
      const facts = { turnId, turn: host.turnCount, assistant, toolResults: [...step.toolResults ?? []], usage, finishReason: step.finishReason ?? 'stop' }
      try {
        const verdict = await decideAfterTurn(host, facts, { end: step.decided?.stop, keepGoing: step.decided?.continues })
        return { phase: 'afterTurn', keepGoing: verdict.keepGoing, messages: verdict.messages, ...(verdict.end ? { end: verdict.end } : {}), ...(verdict.result ? { result: verdict.result } : {}) }
      }
      catch (error) {
        return { phase: 'afterTurn', keepGoing: false, messages: [], error: error as Error }
      }
    }
    case 'providerError':
      try {
        const messages: InjectedMessage[] = []
        const verdict = await decideProviderError(host, host.turnCount, step.error, step.retried === true, messages)
        return { phase: 'providerError', ...(verdict === undefined || verdict === 'aborted' ? {} : { verdict }), ...(messages.length > 0 ? { messages } : {}) }
      }
      catch (error) {
        return { phase: 'providerError', error: error as Error }
      }
  }
}

/** Tools for plain names: each advertised under its own name, with an empty schema. A script plays phases; it never runs a tool. */
function scriptTools(names: readonly string[]): ToolMap {
  const execute = () => {
    throw new Error('runPolicyScript never runs a tool: give the call\'s result in a `result` step')
  }
  return Object.fromEntries(names.map(name => [name, { spec: { name, description: '', inputSchema: { type: 'object' } }, execute }]))
}

/** A gate's abort aborts the run, as the dispatcher does when it answers the call. */
function abortOn(host: ScriptHost, decision: CallDecision | undefined): void {
  if (decision?.type === 'abort')
    host.abort(decision.reason)
}

function gatedCall(call: ScriptedCall, fallbackId: string): GatedCall {
  return { callId: call.id ?? fallbackId, name: call.name, displayName: call.name, input: call.input ?? {} }
}

function jsonCopy(state: PolicyState | undefined): PolicyState {
  return state === undefined ? null : JSON.parse(JSON.stringify(state)) as PolicyState
}
