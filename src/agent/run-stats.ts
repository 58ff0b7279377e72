import type { SessionTurn } from '../core/content'
import type { AgentStats } from '../core/stats'
import type { StopReason } from '../core/stop-reason'
import type { RunContext } from '../loop/run-context'
import { AgentAbortedError } from '../errors'

/*
 * What `agent.run()` returns: the stats of one run, built from its context
 * when it ends (this leg only when the run continues an earlier one).
 */

/**
 * What `stats.abortReason` says about an abort's reason: a string as given,
 * an error's message. A bare cancel (`agent.abort()`, a plain
 * `AbortController.abort()`) leaves its default marker, which says nothing.
 */
function abortReasonText(reason: unknown): string | undefined {
  if (typeof reason === 'string')
    return reason === '' ? undefined : reason
  if (!(reason instanceof Error))
    return undefined
  const bare = (reason instanceof AgentAbortedError && reason.message === new AgentAbortedError().message)
    || (reason.name === 'AbortError' && reason.message === 'This operation was aborted')
  return bare || reason.message === '' ? undefined : reason.message
}

/** Totals cover this run and every subagent under it (child stats are cumulative for their own subtree). */
export function buildStats(run: RunContext, stopReason: StopReason): AgentStats {
  let totalIn = 0
  let totalOut = 0
  let totalCacheRead = 0
  let totalCacheCreation = 0
  let cost = 0
  // The stats are this call's leg; an earlier leg of a continued run reported its own (see `RunLegStart`).
  const leg = run.legStart
  const usages = leg.usage === 0 ? run.usage : run.usage.slice(leg.usage)
  const sideCalls = leg.sideCalls === 0 ? run.sideCalls : run.sideCalls.slice(leg.sideCalls)
  const children = leg.children === 0 ? run.children : run.children.slice(leg.children)
  // Side-band calls (compaction summaries) are billed like turns, so the totals include them.
  for (const usage of [...usages, ...sideCalls]) {
    totalIn += usage.input
    totalOut += usage.output
    totalCacheRead += usage.cacheRead ?? 0
    totalCacheCreation += usage.cacheCreation ?? 0
    cost += usage.cost ?? 0
  }
  for (const { stats: child } of children) {
    totalIn += child.totalIn
    totalOut += child.totalOut
    totalCacheRead += child.totalCacheRead
    totalCacheCreation += child.totalCacheCreation
    cost += child.cost ?? 0
  }
  const stats: AgentStats = {
    turns: run.turnCount - leg.turns,
    totalIn,
    totalOut,
    totalCacheRead,
    totalCacheCreation,
    elapsed: run.effects.now() - run.startedAtMs,
    turnUsage: [...usages],
    text: finalText(run.turns),
    stopReason,
  }
  if (cost > 0)
    stats.cost = cost
  if (run.firstSignalAtMs !== undefined)
    stats.timeTillFirstTokenMs = run.firstSignalAtMs - run.startedAtMs
  if (stopReason === 'paused')
    stats.paused = true
  if (stopReason === 'suspended') {
    stats.suspended = true
    const reason = run.suspendSignal?.reason
    if (typeof reason === 'string')
      stats.suspendReason = reason
  }
  if (stopReason === 'aborted') {
    const reason = abortReasonText(run.signal.reason)
    if (reason !== undefined)
      stats.abortReason = reason
  }
  if (sideCalls.length > 0)
    stats.sideCalls = [...sideCalls]
  if (children.length > 0)
    stats.children = [...children]
  const result = run.stopResult
  if (result) {
    if (result.text !== undefined)
      stats.text = result.text
    if (result.output !== undefined)
      stats.output = result.output
    if (result.outputError !== undefined)
      stats.outputError = result.outputError
  }
  return stats
}

/** Text of the last assistant turn. */
function finalText(turns: readonly SessionTurn[]): string {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]
    if (turn.role === 'assistant')
      return turn.content.map(block => block.type === 'text' ? block.text : '').join('')
  }
  return ''
}
