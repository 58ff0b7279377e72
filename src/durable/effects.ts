import type { ModelCallKind, ModelCallRequest, RunEffects, ToolCallRequest } from '../core/effects'
import type { AttemptFacts } from '../loop/stream-turn'
import type { DurableRuntime } from './types'
import { AsyncLocalStorage } from 'node:async_hooks'
import { flatUUID } from '../core/clock'
import { defaultRunEffects } from '../core/effects'
import { delay } from '../core/timer'
import { AgentAbortedError, ClassifiedError, DurablePayloadTooLargeError } from '../errors'
import { attachAttemptFacts, factsOfAttempt } from '../loop/stream-turn'
import { jsonReplacer } from '../loop/tool-output-check'
import { DEFAULT_MAX_ENTRY_BYTES } from './types'

const made = new WeakMap<DurableRuntime, RunEffects>()
const DASHES = /-/g

/**
 * A runtime's effects: what `createAgent({ durable })` runs every run on.
 *
 * In `'replay'` mode each model attempt's result (never its request), each
 * tool call's output with its staged tool-state ops and reported outcome,
 * each policy step's value and each wait's deadline is one journal step,
 * named from the run id, the turn or call id and the attempt (a wait by its
 * count in the scope), so a re-executed run finds its
 * entries again; time and ids come from the runtime. In `'checkpoint'` mode
 * nothing is journaled: time and ids come from the runtime, calls run as
 * given (the session store is the checkpoint).
 *
 * The same runtime always gives the same effects object, so runs of one
 * agent and a run's subagents share one sequence of step names.
 */
export function durableEffects(runtime: DurableRuntime): RunEffects {
  let effects = made.get(runtime)
  if (!effects) {
    effects = runtime.mode === 'replay' ? journalEffects(openJournal(runtime), '') : checkpointEffects(runtime)
    made.set(runtime, effects)
  }
  return effects
}

function checkpointEffects(runtime: DurableRuntime): RunEffects {
  return Object.freeze({
    ...defaultRunEffects(),
    now: () => runtime.now(),
    id: () => runtime.randomUUID(),
  })
}

/**
 * Where time stands inside a running step: still at the step's start. What
 * a step measures inside itself (a stream's first token) is journaled with
 * its result, so it must not depend on when the step happened to run.
 */
interface StepTime {
  readonly startedAt: number
}

interface Journal {
  readonly runtime: DurableRuntime
  readonly maxBytes: number
  /** How many steps took each base name so far: the second one is `<base>#2`. */
  readonly names: Map<string, number>
  /** Set while a step's function runs: what it reads of time and ids is not journaled on its own. */
  readonly inside: AsyncLocalStorage<StepTime>
  /** The runtime's last time, where the next step's live clock starts. */
  lastNow: number
}

function openJournal(runtime: DurableRuntime): Journal {
  const maxBytes = runtime.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES
  if (!(maxBytes > 0))
    throw new RangeError(`maxEntryBytes must be a positive number of bytes; got ${String(runtime.maxEntryBytes)}`)
  return { runtime, maxBytes, names: new Map(), inside: new AsyncLocalStorage(), lastNow: 0 }
}

/** A journal entry refused for its size: only its size is journaled. */
interface Refused { readonly tooLarge: number }

function isRefused(entry: object): entry is Refused {
  return 'tooLarge' in entry
}

function journalEffects(journal: Journal, scope: string): RunEffects {
  const { runtime } = journal
  const name = (base: string) => {
    const full = `${scope}${base}`
    const count = (journal.names.get(full) ?? 0) + 1
    journal.names.set(full, count)
    return count === 1 ? full : `${full}#${count}`
  }
  const refuse = (step: string, entry: Refused) => new DurablePayloadTooLargeError(step, entry.tooLarge, journal.maxBytes)

  return Object.freeze({
    now: () => {
      const step = journal.inside.getStore()
      if (step)
        return step.startedAt
      journal.lastNow = runtime.now()
      return journal.lastNow
    },
    id: () => journal.inside.getStore() ? flatUUID() : runtime.randomUUID(),
    random: () => uuidFraction(journal.inside.getStore() ? globalThis.crypto.randomUUID() : runtime.randomUUID()),
    // A wait (a retry's backoff) is the engine's timer when it has one; otherwise it is journaled as its
    // deadline, so a replay waits only what is left of it.
    async sleep(ms: number, signal?: AbortSignal): Promise<void> {
      // A step's function may not enter the runtime again: a wait inside a step is part of that step.
      if (journal.inside.getStore())
        return delay(ms, signal)
      const step = name('sleep')
      if (runtime.sleep)
        return runtime.sleep(step, ms, signal)
      const { entry } = await journaled<{ until: number }>(journal, step, async () => ({ until: Date.now() + ms }))
      const left = isRefused(entry) ? ms : Math.min(ms, entry.until - Date.now())
      return delay(Math.max(0, left), signal)
    },

    async model<T>(kind: ModelCallKind, request: ModelCallRequest, exec: () => Promise<T>): Promise<T> {
      const step = name(`model:${kind}:${request.runId ?? '-'}:${request.id}:${request.attempt}`)
      const { entry } = await journaled<ModelEntry>(journal, step, async () => {
        try {
          const result = await exec()
          return withFacts({ result }, factsOfAttempt(result))
        }
        catch (error) {
          // Only a provider's answer is journaled; an abort or a bug is not an answer, and a replay asks again.
          if (!(error instanceof ClassifiedError) || error.kind === 'aborted')
            throw error
          return withFacts({ error: describeProviderError(error) }, factsOfAttempt(error))
        }
      })
      if (isRefused(entry))
        throw refuse(step, entry)
      if (entry.error) {
        const error = rebuildProviderError(entry.error)
        if (entry.facts)
          attachAttemptFacts(error, entry.facts)
        throw error
      }
      const result = entry.result as T
      if (entry.facts && typeof result === 'object' && result !== null)
        attachAttemptFacts(result, entry.facts)
      return result
    },

    async tool<T>(call: ToolCallRequest, exec: () => Promise<T>): Promise<T> {
      // A subagent journals its own calls; its result follows from them.
      if (call.runsNestedAgent)
        return exec()
      const step = name(`tool:${call.runId}:${call.callId}`)
      const record = call.record
      const { entry, ran } = await journaled<ToolEntry>(journal, step, async () => {
        try {
          const output = await exec()
          const ops = record?.stagedOps() ?? []
          const reads = record?.reads() ?? []
          return {
            output,
            ...(ops.length > 0 ? { ops } : {}),
            ...(reads.length > 0 ? { reads } : {}),
            ...(record?.outcome() === undefined ? {} : { outcome: record.outcome() }),
          }
        }
        catch (error) {
          if (isAbort(error))
            throw error
          // The tool ran and failed: that is its result, journaled like any other.
          return { thrown: error instanceof Error ? error.message : String(error) }
        }
      })
      if (isRefused(entry))
        throw refuse(step, entry)
      if (entry.thrown !== undefined)
        throw new Error(entry.thrown)
      if (!ran) {
        record?.restoreOps(entry.ops ?? [])
        record?.restoreReads(entry.reads ?? [])
        if (entry.outcome !== undefined)
          record?.restoreOutcome(entry.outcome)
      }
      return entry.output as T
    },

    async step<T>(stepName: string, exec: () => Promise<T>): Promise<T> {
      const step = name(`step:${stepName}`)
      const { entry } = await journaled<{ value?: unknown }>(journal, step, async () => ({ value: await exec() }))
      if (isRefused(entry))
        throw refuse(step, entry)
      return entry.value as T
    },

    within: (inner: string) => journalEffects(journal, `${scope}${inner}/`),
  })
}

interface ModelEntry {
  result?: unknown
  error?: ProviderErrorRecord
  facts?: AttemptFacts
}

interface ToolEntry {
  output?: unknown
  ops?: readonly unknown[]
  reads?: readonly unknown[]
  outcome?: unknown
  thrown?: string
}

function withFacts<E extends object>(entry: E, facts: AttemptFacts | undefined): E & { facts?: AttemptFacts } {
  return facts ? { ...entry, facts } : entry
}

/**
 * One journal step. The value is handed on as its JSON copy, on the first
 * run as on a replay, so both see the same data; over `maxEntryBytes` only
 * the refusal is journaled. `ran` says whether `produce` ran in this process.
 */
async function journaled<E extends object>(journal: Journal, step: string, produce: () => Promise<E>): Promise<{ entry: E | Refused, ran: boolean }> {
  let ran = false
  const entry = await journal.runtime.step<E | Refused>(step, () => journal.inside.run({ startedAt: journal.lastNow }, async () => {
    ran = true
    // The loop's own conversion: a bare stringify throws on a bigint and writes a Map or a Set as `{}`.
    const json = JSON.stringify(await produce(), jsonReplacer)
    const bytes = Buffer.byteLength(json)
    if (bytes > journal.maxBytes)
      return { tooLarge: bytes }
    return JSON.parse(json) as E
  }))
  return { entry, ran }
}

interface ProviderErrorRecord {
  message: string
  kind: ClassifiedError['kind']
  retryable: boolean
  status?: number
  retryAfterMs?: number
  provider?: string
  url?: string
}

function describeProviderError(error: ClassifiedError): ProviderErrorRecord {
  return { message: error.message, kind: error.kind, retryable: error.retryable, status: error.status, retryAfterMs: error.retryAfterMs, provider: error.provider, url: error.url }
}

function rebuildProviderError(record: ProviderErrorRecord): ClassifiedError {
  const { message, ...init } = record
  return new ClassifiedError(message, init)
}

function isAbort(error: unknown): boolean {
  return error instanceof AgentAbortedError || (error instanceof Error && error.name === 'AbortError')
}

/** A number in [0, 1) from the first 52 bits of a UUID's hex digits. */
function uuidFraction(uuid: string): number {
  const hex = uuid.replace(DASHES, '').slice(0, 13)
  const value = Number.parseInt(hex, 16)
  return Number.isFinite(value) ? value / 2 ** 52 : 0
}
