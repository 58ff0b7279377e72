/**
 * The run's `SessionRun` record: what it says when the run starts, and how
 * it is closed when the run ends, whichever way.
 */
import type { AgentStats } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { DecisionRecord } from '../decisions/types'
import type { RunContext } from '../loop/run-context'
import type { SessionEndStatus, SessionRun } from '../session/types'
import type { AgentRunOptions } from './options'
import { definedOnly } from '../core/defined-only'
import { mergeObjects } from '../core/merge-objects'
import { callHookBounded } from '../hooks/bus'
import { hookTimeout, runIds } from '../loop/stream-turn'
import { savedState } from './run-state-record'

/** The record of a run that has just started (`status: 'running'`). */
export function openRunRecord(run: RunContext, options: AgentRunOptions, traceContext: Record<string, string> | undefined): SessionRun {
  return {
    id: run.runId,
    status: 'running',
    startedAt: run.startedAt,
    ...definedOnly({
      parentRunId: options.parentRunId,
      parentCallId: options.parentCallId,
      label: options.runLabel,
      agent: options.runAgent ?? (options.profile ? { name: options.profile.name } : undefined),
      origin: options.runOrigin,
      resumedFromRunId: options.resumeRunId,
      traceContext,
    }),
  }
}

/** Close the run's record with its outcome, usage and decisions, and fire `session:end`. */
export async function finishRecord(
  run: RunContext,
  record: SessionRun,
  status: SessionEndStatus,
  stats: AgentStats,
  stopReason?: StopReason,
  error?: unknown,
  decisions: readonly DecisionRecord[] = [],
): Promise<void> {
  const session = run.session
  if (!session)
    return
  await session.saveRun(mergeObjects(mergeObjects(record, { status, endedAt: await run.clock.now() }, definedOnly({ stopReason }), (error === undefined ? {} : { error: describeError(error) })), (decisions.length === 0 ? {} : { decisions: [...decisions] }), { state: savedState(run), usage: {
    input: stats.totalIn,
    output: stats.totalOut,
    cacheRead: stats.totalCacheRead,
    cacheCreation: stats.totalCacheCreation,
    turns: stats.turns,
    ...definedOnly({ cost: stats.cost }),
  } }))
  await callHookBounded(run.hooks, 'session:end', mergeObjects(runIds(run), { sessionId: session.id, status }, definedOnly({ stopReason })), { timeoutMs: hookTimeout(run), failClosed: false })
}

function describeError(error: unknown): { name: string, message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) }
}
