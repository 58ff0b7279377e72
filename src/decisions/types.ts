/**
 * The decisions API: one small structured model call that answers typed
 * questions about some evidence (`agent.decide`, `ctx.decide` in hooks).
 * Everything here is a plain shape; the call itself lives in
 * `agent/decide.ts`, the wire form in each provider's `decisions.ts`.
 */

import type { PromptPart, SessionMessage } from '../core/content'
import type { DecisionFailureReason } from '../errors'

export type { DecisionFailureReason }

/** What every question has: the text the model answers. */
interface DecisionQuestionBase {
  /** The question, in plain words. */
  question: string
}

/** A yes/no question; its answer is a boolean. */
export interface DecisionPredicateQuestion extends DecisionQuestionBase {
  kind: 'predicate'
}

/** A question answered by exactly one of `options`. */
export interface DecisionChoiceQuestion<O extends string = string> extends DecisionQuestionBase {
  kind: 'choice'
  /** The allowed answers: at least one, no duplicates. */
  options: readonly O[]
}

/** A question answered by a number in `[min, max]`. */
export interface DecisionScoreQuestion extends DecisionQuestionBase {
  kind: 'score'
  /** Lowest allowed score (inclusive). */
  min: number
  /** Highest allowed score (inclusive); greater than `min`. */
  max: number
}

/** One question: a predicate, a choice or a score. */
export type DecisionQuestion = DecisionPredicateQuestion | DecisionChoiceQuestion | DecisionScoreQuestion

/** Questions keyed by name. The name keys the matching answer. */
export type DecisionQuestions = Record<string, DecisionQuestion>

/**
 * The evidence the questions are evaluated against: a string, a JSON object of
 * related context, or prompt parts (text with images or documents; what a
 * provider accepts varies, and what it cannot take fails as `unsupported`).
 */
export type DecisionInput = string | Readonly<Record<string, unknown>> | readonly PromptPart[]

/** Which of the three input shapes a request carried. */
export type DecisionInputKind = 'text' | 'json' | 'parts'

/** What every answer carries besides its value. */
interface DecisionAnswerBase {
  /** The model's short justification. */
  reason: string
}

/** Answer to a predicate question. */
export interface DecisionPredicateAnswer extends DecisionAnswerBase {
  kind: 'predicate'
  value: boolean
}

/** Answer to a choice question: one of its options. */
export interface DecisionChoiceAnswer<O extends string = string> extends DecisionAnswerBase {
  kind: 'choice'
  value: O
}

/** Answer to a score question: a number within its range. */
export interface DecisionScoreAnswer extends DecisionAnswerBase {
  kind: 'score'
  value: number
}

/** The model declined this one question (the evidence does not say); `reason` says why. */
export interface DecisionRefusalAnswer extends DecisionAnswerBase {
  kind: 'refusal'
}

/** Answer to one question: a predicate, choice or score answer, or a refusal. */
export type DecisionAnswer = DecisionPredicateAnswer | DecisionChoiceAnswer | DecisionScoreAnswer | DecisionRefusalAnswer

/** The answer type that matches one question, refusal included. */
export type DecisionAnswerFor<Q extends DecisionQuestion>
  = | (Q extends DecisionPredicateQuestion ? DecisionPredicateAnswer : never)
    | (Q extends DecisionChoiceQuestion<infer O> ? DecisionChoiceAnswer<O> : never)
    | (Q extends DecisionScoreQuestion ? DecisionScoreAnswer : never)
    | DecisionRefusalAnswer

/** Answers keyed by question name, each typed from its question. */
export type DecisionAnswers<Q extends DecisionQuestions> = { readonly [K in keyof Q]: DecisionAnswerFor<Q[K]> }

/** Input to `agent.decide` and `ctx.decide`: the evidence and the questions to answer about it. */
export interface DecisionRequest<Q extends DecisionQuestions = DecisionQuestions> {
  /** Evidence the questions are evaluated against. */
  input: DecisionInput
  /** Questions keyed by name (letters, digits, `_` and `-`, at most 64). Each answer comes back under the same name. */
  questions: Q
  /** Model override. Falls back to `AgentOptions.decisions.model`, then the provider default. */
  model?: string
  /** Wall-clock cap in ms. Falls back to `AgentOptions.decisions.timeoutMs`, then 5000. */
  timeoutMs?: number
  /** Extra cancellation, combined with the active run's signal. */
  signal?: AbortSignal
}

/** Token usage of one decision call. */
export interface DecisionUsage {
  /** Input tokens. */
  input: number
  /** Output tokens. */
  output: number
  /** USD, when the provider reports it or the price is known. */
  cost?: number
}

/** A decision that produced answers. */
export interface DecisionSuccess<Q extends DecisionQuestions = DecisionQuestions> {
  ok: true
  /** Unique id of this decision, shared with the `decision:*` hooks. */
  decisionId: string
  /** Answers keyed by question name. */
  answers: DecisionAnswers<Q>
  /** Name of the provider that answered. */
  provider: string
  /** Model that answered. */
  model: string
  /** Provider-side request id, when reported. */
  id?: string
  /** Token usage and cost of the call. */
  usage: DecisionUsage
}

/** A decision that produced no answers; `reason` says which kind of failure. */
export interface DecisionFailure {
  ok: false
  /** Unique id of this decision, shared with the `decision:*` hooks. */
  decisionId: string
  /** Category of the failure. */
  reason: DecisionFailureReason
  /** Human-readable explanation. */
  message: string
  /** Name of the provider the decision was sent to, when one was selected. */
  provider?: string
  /** Model the decision was sent to, when one was selected. */
  model?: string
  /** Underlying error, when the failure came from a thrown error. */
  error?: Error
}

/** Result of a decision. Narrow on `ok`. */
export type DecisionOutcome<Q extends DecisionQuestions = DecisionQuestions> = DecisionSuccess<Q> | DecisionFailure

/** Options of one `decide` call besides the request. */
export interface DecideOptions {
  /** Throw a `DecisionError` instead of returning a failure. */
  throw?: boolean
}

/**
 * `agent.decide` / `ctx.decide`. Never throws by default: a failure comes back
 * as `{ ok: false, reason }`. With `{ throw: true }` a failure is thrown as a
 * `DecisionError` and the result is always a success.
 */
export interface AgentDecide {
  <Q extends DecisionQuestions>(request: DecisionRequest<Q>, options: DecideOptions & { throw: true }): Promise<DecisionSuccess<Q>>
  <Q extends DecisionQuestions>(request: DecisionRequest<Q>, options?: DecideOptions): Promise<DecisionOutcome<Q>>
  /**
   * Whether a decision provider is configured, has usable credentials, and its
   * default model is not known to be unavailable. Cheap and synchronous; it
   * does not check that the endpoint is up.
   */
  readonly available: boolean
}

/** Present on every hook context except `decision:*`. */
export interface DecideHookContext {
  /**
   * Make a decision from inside a hook. Bound to the active run: its abort
   * signal cancels the decision, `decision:*` hooks carry its run id, and the
   * outcome is recorded on the run. Never throws unless asked to.
   */
  readonly decide: AgentDecide
}

/** Context passed to the `decision:start` hook. */
export interface DecisionStartHookContext {
  /** Unique id of this decision. */
  decisionId: string
  /** Run the decision was issued from (via `ctx.decide`), when known. */
  runId?: string
  /** Names of the questions in the request. */
  questionNames: string[]
  /** Kind of input the request carried. */
  inputKind: DecisionInputKind
  /** Name of the selected provider, when one was selected. */
  provider?: string
  /** Selected model, when known. */
  model?: string
  /** Start time as epoch milliseconds. */
  startedAt: number
}

/** Context passed to the `decision:end` hook. */
export interface DecisionEndHookContext extends DecisionStartHookContext {
  /** Whether the decision produced answers. */
  ok: boolean
  /** Elapsed time from start to finish, in milliseconds. */
  durationMs: number
  /** Answers keyed by question name. Set only when `ok` is `true`. */
  answers?: Readonly<Record<string, DecisionAnswer>>
  /** Token usage and cost. Set only when `ok` is `true`. */
  usage?: DecisionUsage
  /** Failure reason. Set only when `ok` is `false`. */
  reason?: DecisionFailureReason
  /** Failure message. Set only when `ok` is `false`. */
  message?: string
}

/**
 * One decision as a run records it (`SessionRun.decisions`), in the order the
 * decisions were made. Plain JSON: a replay of the run hands these outcomes
 * back in order instead of asking a model again.
 */
export interface DecisionRecord {
  decisionId: string
  questionNames: string[]
  inputKind: DecisionInputKind
  startedAt: number
  durationMs: number
  provider?: string
  model?: string
  /** The outcome without its `error` object (errors are not JSON). */
  outcome: { ok: true, answers: Readonly<Record<string, DecisionAnswer>>, usage: DecisionUsage, id?: string }
    | { ok: false, reason: DecisionFailureReason, message: string }
}

/**
 * One structured call as the agent hands it to a provider: a system prompt,
 * one user message (the evidence and the questions), and the JSON Schema the
 * answer object must follow.
 */
export interface DecisionCall {
  model: string
  system: string
  /** A single user message. */
  messages: SessionMessage[]
  /** The answer object's schema: one property per question name, all required, no others. */
  schema: Record<string, unknown>
  /** Output-token ceiling for the answer. */
  maxTokens: number
  /** Cancels the request; providers pass it to their HTTP client. */
  signal: AbortSignal
}

/** What the model sent back, before the agent checks it against the questions. */
export type DecisionReplyBody
  /** The answer object (parsed JSON, not yet checked). */
  = | { type: 'answers', value: unknown }
  /** The model declined the whole request. */
    | { type: 'refusal', message: string }
  /** No usable answer object (cut off at the token limit, not JSON, no tool call). */
    | { type: 'malformed', message: string }

/** A provider's answer to one `DecisionCall`. */
export interface DecisionReply {
  body: DecisionReplyBody
  /** The model that served the call. */
  model: string
  usage: DecisionUsage
  /** Provider-side request or message id, when the API reports one. */
  id?: string
}

/**
 * The `decisions` capability of a provider: its cheapest reliable structured
 * mode for one short answer. Failures are thrown as `ClassifiedError`, like
 * `stream()`; the agent turns them into a `DecisionFailure`.
 */
export interface ProviderDecisions {
  /** Model used when neither the request nor `AgentOptions.decisions` names one. */
  readonly defaultModel: string
  /** Whether a call could go out now (credentials present). Cheap and synchronous. */
  canAnswer: () => boolean
  /** Send one call. */
  decide: (call: DecisionCall) => Promise<DecisionReply>
}
