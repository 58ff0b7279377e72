/**
 * Mutation validation: run a check (a type check, a test command) after each
 * tool-results round that changed files, and report a failure so the model
 * can fix what it broke before it moves on. Built only from public hooks
 * (`tool:after` collects, `tool-results:after` validates), so it plugs into
 * any agent without the loop knowing about it.
 */

import type { ToolResultContent } from '../core/content'
import type { MaybePromise } from '../core/maybe-promise'
import type { ToolOutcome } from '../core/tool-io'
import type { AgentHooks } from './hook-map'
import { mergeObjects } from '../core/merge-objects'
import { pushAll } from '../core/push-all'

/** The outcomes that mean a tool call changed something (a no-op or a failure did not). */
export type SuccessfulMutationOutcome = Extract<ToolOutcome, 'created' | 'updated' | 'edited'>

/** One call that changed a file (or another resource) and succeeded. */
export interface MutationValidationMutation {
  /** Id of the tool call. */
  callId: string
  /** Name the model used for the tool. */
  displayName: string
  /** Arguments the call was made with. */
  input: Record<string, unknown>
  /** What the tool reported it did. */
  outcome: SuccessfulMutationOutcome
  /** The result the model received for the call. */
  result: string | ToolResultContent[]
  /** Canonical name of the tool. */
  tool: string
  /** Id of the assistant turn that made the call. */
  turnId: string
}

/** The successful mutations of the rounds since the last validation, handed to `validate`. */
export interface MutationValidationBatch {
  /** In call order. */
  mutations: readonly MutationValidationMutation[]
  /** Id of the assistant turn whose tool results closed the batch. */
  turnId: string
}

/** What `validate` says: passed, or failed with an optional message and list of errors. */
export type MutationValidationResult
  = | { ok: true }
    | { errors?: readonly string[], message?: string, ok: false }

/** A validation that failed, as `onFailure` receives it. */
export interface MutationValidationFailure {
  batch: MutationValidationBatch
  /** Failures reported in this run so far, this one included. */
  failureCount: number
  /** The text meant for the model (from `buildFailureMessage`, or the default). */
  message: string
  /** The failing result `validate` returned. */
  result: { errors?: readonly string[], message?: string, ok: false }
}

/** Options of `createMutationValidationHooks`. */
export interface MutationValidationHooksOptions {
  /** Write the model's message for a failure. Default: the changed files, then the validation's message and errors. */
  buildFailureMessage?: (failure: Omit<MutationValidationFailure, 'message'>) => string
  /** How many failures a run reports; later batches are not validated. Default: 2. */
  maxFailuresPerRun?: number
  /** `validate` threw: the error goes here, never to the model. */
  onError?: (error: unknown, batch: MutationValidationBatch) => MaybePromise
  /** A failure within `maxFailuresPerRun`: pass `failure.message` on, e.g. with `agent.steer` or `agent.followUp`. */
  onFailure?: (failure: MutationValidationFailure) => MaybePromise
  /** Check a batch. Return `{ ok: false }` to report a failure; anything else passes. */
  validate: (batch: MutationValidationBatch) => MaybePromise<MutationValidationResult | undefined | void>
}

/** The hooks `createMutationValidationHooks` returns: spread into `hooks`, or pass to `agent.hooks.addHooks`. */
export interface MutationValidationHooks {
  'tool:after': AgentHooks['tool:after']
  'tool-results:after': AgentHooks['tool-results:after']
  'agent:done': AgentHooks['agent:done']
  'agent:error': AgentHooks['agent:error']
}

/** Default of `maxFailuresPerRun`. */
const DEFAULT_MAX_FAILURES_PER_RUN = 2

const SUCCESSFUL: ReadonlySet<ToolOutcome> = new Set<SuccessfulMutationOutcome>(['created', 'updated', 'edited'])

/** What one run has collected so far. Runs are kept apart by id, so subagents and parallel agents never mix. */
interface RunTally {
  pending: MutationValidationMutation[]
  failures: number
}

/**
 * Hooks that validate the files a run changed. Each `tool:after` with a
 * `created`, `updated` or `edited` outcome (and no error) joins the batch;
 * when the round's results are recorded (`tool-results:after`), `validate`
 * runs once on everything collected since the last validation. A failure is
 * handed to `onFailure` with the message for the model, up to
 * `maxFailuresPerRun` times per run.
 */
export function createMutationValidationHooks(options: MutationValidationHooksOptions): MutationValidationHooks {
  if (typeof options?.validate !== 'function')
    throw new TypeError('createMutationValidationHooks() needs a validate function')
  const max = options.maxFailuresPerRun ?? DEFAULT_MAX_FAILURES_PER_RUN
  if (typeof max !== 'number' || Number.isNaN(max) || max < 0)
    throw new TypeError(`maxFailuresPerRun must be a number of failures (0 or more), got ${String(max)}`)
  const runs = new Map<string, RunTally>()
  const tally = (runId: string): RunTally => {
    let entry = runs.get(runId)
    if (!entry) {
      entry = { pending: [], failures: 0 }
      runs.set(runId, entry)
    }
    return entry
  }
  const forget = ({ runId }: { runId: string }) => {
    runs.delete(runId)
  }

  return {
    'tool:after': (ctx) => {
      if (ctx.isError || ctx.outcome === undefined || !SUCCESSFUL.has(ctx.outcome))
        return
      tally(ctx.runId).pending.push({
        callId: ctx.callId,
        displayName: ctx.displayName,
        input: ctx.input,
        outcome: ctx.outcome as SuccessfulMutationOutcome,
        result: ctx.result,
        tool: ctx.name,
        turnId: ctx.turnId,
      })
    },
    'tool-results:after': async (ctx) => {
      const entry = runs.get(ctx.runId)
      if (!entry || entry.pending.length === 0 || entry.failures >= max)
        return
      const batch: MutationValidationBatch = { mutations: entry.pending.splice(0), turnId: ctx.turnId }
      let result: MutationValidationResult | undefined | void
      try {
        result = await options.validate(batch)
      }
      catch (error) {
        await options.onError?.(error, batch)
        return
      }
      if (!result || result.ok !== false)
        return
      entry.failures += 1
      const facts = { batch, failureCount: entry.failures, result }
      const message = options.buildFailureMessage ? options.buildFailureMessage(facts) : defaultFailureMessage(facts)
      await options.onFailure?.(mergeObjects(facts, { message }))
    },
    'agent:done': forget,
    'agent:error': forget,
  }
}

/** The changed files first (what the model touched), then what the check said. */
function defaultFailureMessage({ batch, result }: Omit<MutationValidationFailure, 'message'>): string {
  const lines = ['Validation failed after your last changes.', 'Changed:']
  for (const mutation of batch.mutations) {
    const path = typeof mutation.input.path === 'string' ? mutation.input.path : undefined
    lines.push(`- ${path ?? mutation.displayName} (${mutation.outcome} by ${mutation.displayName})`)
  }
  if (result.message)
    lines.push(result.message)
  if (result.errors && result.errors.length > 0) {
    lines.push('Errors:')
    pushAll(lines, result.errors.map(error => `- ${error}`))
  }
  lines.push('Fix these problems before you continue.')
  return lines.join('\n')
}
