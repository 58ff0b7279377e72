/**
 * `restateAgent(...)`: the Restate start runner. A virtual object keyed by
 * session id; Restate runs one exclusive handler per key at a time, so the
 * key is the session's lease across every worker. `run` starts a run,
 * `resume` continues a suspended one, and `suspend` (shared, so it runs
 * while `run` does) asks the running handler to stop at its next journal
 * boundary, through an awakeable the running handler keeps in the object's
 * state (so it reaches the run whichever worker holds it) and races with
 * each journal step (so a replay sees it at the same step). A cancellation
 * of the invocation aborts the run, which the invocation then ends with.
 */
import type { ObjectContext, ObjectSharedContext, VirtualObjectDefinition } from '@restatedev/restate-sdk'
import type { Agent } from '../../agent/create-agent'
import type { AgentOptions, AgentRunOptions } from '../../agent/options'
import type { AgentStats } from '../../core/stats'
import type { SessionStore } from '../../session/types'
import { createAgent } from '../../agent/create-agent'
import { mergeObjects } from '../../core/merge-objects'
import { AgentAbortedError } from '../../errors'
import { loadSession } from '../../session/session'
import { DEFAULT_MAX_ENTRY_BYTES } from '../types'
import { openJournaledStore } from './journaled-store'
import { parseRunInput } from './run-input'
import { journalRuntime } from './runtime'
import { restateSdk } from './sdk'
import { asRestateFailure } from './terminal'

/** The JSON part of `AgentRunOptions` a `run` or `resume` invocation takes. */
export type RestateRunInput = Pick<AgentRunOptions, 'prompt' | 'model' | 'system' | 'thinking' | 'behavior' | 'metadata' | 'modelOptions' | 'runLabel'>

/** Options of `restateAgent`. */
export interface RestateAgentOptions {
  /** The virtual object's name in Restate (default `zidane-agent`). */
  name?: string
  /** Where sessions live; one session per object key. */
  store: SessionStore
  /** The agent for one session, built for each invocation (`session` and `durable` are set by the runner). */
  agent: (context: { sessionId: string }) => AgentOptions
  /** Largest journal entry, in bytes of JSON (default 4 MiB). */
  maxEntryBytes?: number
}

/** The handlers' names and types, as a Restate client sees them. */
export interface RestateAgentHandlers {
  /** Exclusive: start a run on the session (`null` input: a run without a new prompt). */
  run: (ctx: ObjectContext, input: RestateRunInput | null) => Promise<AgentStats>
  /** Exclusive: continue the session's suspended (or cut off) run. */
  resume: (ctx: ObjectContext, input: RestateRunInput | null) => Promise<AgentStats>
  /** Shared: ask the running `run` / `resume` to stop at its next journal boundary; `false` when none is running. */
  suspend: (ctx: ObjectSharedContext, reason: string | null) => Promise<boolean>
}

/** The state key holding the running invocation's suspend awakeable. */
const SUSPEND_KEY = 'zidane:suspend'

/**
 * What `SUSPEND_KEY` holds: the awakeable, and the invocation that waits on
 * it. A killed invocation never clears the key (its `finally` does not
 * run), so `suspend` checks that the invocation is still running. A bare
 * string is the awakeable alone, as an earlier version wrote it.
 */
type SuspendEntry = string | { awakeable: string, invocation: string }

/**
 * How long `suspend` lets an attach to the invocation answer before taking
 * it for running: an ended invocation answers at once (a killed one with
 * 409), a running one not until it ends.
 */
const LIVENESS_WAIT_MS = 200

/** Defaults of the start runner, under what the caller's behavior says. */
const RUNNER_BEHAVIOR = {
  maxImageEdge: 2000,
  mediaBudget: { maxItems: 80, maxBytes: 20 * 1024 * 1024 },
  disableBackgroundTasks: 'non-durable',
} as const

/**
 * The Restate start runner: a virtual object (default name `zidane-agent`)
 * keyed by session id, with the handlers `run` and `resume` (exclusive; the
 * JSON part of `AgentRunOptions` in, `AgentStats` as JSON out) and `suspend`
 * (shared). Serve it with `restate.serve({ services: [restateAgent(...)] })`.
 */
export function restateAgent(options: RestateAgentOptions): VirtualObjectDefinition<string, RestateAgentHandlers> {
  const sdk = restateSdk('restateAgent')
  const maxEntryBytes = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES

  const invoke = async (ctx: ObjectContext, raw: unknown, how: 'run' | 'resume'): Promise<AgentStats> => {
    // Restate's cancellation, once a step has seen it: the run is aborted, and the invocation ends with it (409).
    let cancelled: Error | undefined
    try {
      const input = parseRunInput(raw, maxEntryBytes)
      const startedAt = await ctx.date.now()
      const suspender = ctx.awakeable<string>()
      // Written at every start, so an entry a killed invocation left behind is replaced.
      ctx.set<SuspendEntry>(SUSPEND_KEY, { awakeable: suspender.id, invocation: ctx.request().id })
      let agent: Agent | undefined
      // A request that came before the run started (while the session was opened) waits for it.
      let early: string | undefined
      const abortRun = () => agent?.abort(new AgentAbortedError('The Restate invocation was cancelled', { cause: cancelled }))
      const onCancel = (error: Error) => {
        cancelled = error
        abortRun()
      }
      // A killed or disconnected attempt: stop the tool in flight; the runtime refuses every later step.
      const onAttemptEnd = () => agent?.abort(new AgentAbortedError('The Restate invocation attempt is over'))
      const runtime = journalRuntime(ctx, { maxEntryBytes, startedAt, onCancel, onAttemptEnd }, {
        promise: suspender.promise,
        onRequest: (reason) => {
          if (!agent?.suspend(reason || undefined))
            early = reason
        },
      })
      const { store } = await openJournaledStore(options.store, ctx.key, runtime)
      const given = options.agent({ sessionId: ctx.key })
      const session = await loadSession(ctx.key, { store })
      agent = createAgent(mergeObjects(given, { behavior: mergeObjects(RUNNER_BEHAVIOR, given.behavior), session, durable: runtime }))
      try {
        const running = how === 'run' ? agent.run(input) : agent.resume(input)
        if (early !== undefined)
          agent.suspend(early || undefined)
        // A cancellation seen while the session was opened, should that step's error not have ended the invocation.
        if (cancelled)
          abortRun()
        const stats = await running
        if (cancelled)
          throw cancelled
        return JSON.parse(JSON.stringify(stats)) as AgentStats
      }
      finally {
        ctx.clear(SUSPEND_KEY)
        await agent.destroy()
      }
    }
    catch (error) {
      // Whatever the cut-off run ended with, the invocation was cancelled.
      throw asRestateFailure(cancelled ?? error)
    }
  }

  return sdk.object({
    name: options.name ?? 'zidane-agent',
    handlers: {
      run: sdk.handlers.object.exclusive((ctx: ObjectContext, input: RestateRunInput | null) => invoke(ctx, input, 'run')),
      resume: sdk.handlers.object.exclusive((ctx: ObjectContext, input: RestateRunInput | null) => invoke(ctx, input, 'resume')),
      suspend: sdk.handlers.object.shared(async (ctx: ObjectSharedContext, reason: string | null) => {
        const entry = await ctx.get<SuspendEntry>(SUSPEND_KEY)
        if (!entry)
          return false
        const awakeable = typeof entry === 'string' ? entry : entry.awakeable
        if (typeof entry !== 'string' && !await stillRunning(ctx, entry.invocation))
          return false
        ctx.resolveAwakeable(awakeable, typeof reason === 'string' ? reason.slice(0, 1000) : '')
        return true
      }),
    },
  })
}

/** Whether `invocation` is still running: an attach to an ended one settles (with its result or its failure) before the wait is over. */
async function stillRunning(ctx: ObjectSharedContext, invocation: string): Promise<boolean> {
  const sdk = restateSdk('restateAgent')
  const id = sdk.InvocationIdParser.fromString(invocation)
  const ended = ctx.attach(id).map(() => true)
  const waited = ctx.sleep(LIVENESS_WAIT_MS).map(() => false)
  return !await sdk.RestatePromise.race([ended, waited])
}
