import type { AgentBehavior } from '../knobs/behavior'
import type { BehaviorPolicy, PhaseResult, TurnDecision } from './policy'
import { AgentBudgetExceededError } from '../errors'
import { activeLimit } from '../knobs/behavior'

function limits(behavior: Readonly<AgentBehavior>) {
  return { maxCost: activeLimit(behavior.maxCostUsd), maxTokens: activeLimit(behavior.maxTotalTokens), maxWall: activeLimit(behavior.maxWallMs) }
}

/**
 * Run budgets (`maxCostUsd`, `maxTotalTokens`, `maxWallMs`), checked after
 * every turn, once that turn's tool results are recorded, so a budget stop
 * never leaves a tool call without its result. A soft cap: the turn that
 * crosses the line completes first. A crossed budget is a `fail` decision
 * carrying `AgentBudgetExceededError`, which the run throws. The spend
 * counted is what the run reports as its own totals: its turns, its side-band
 * calls (`run.sideCalls`) and every subagent it spawned, whole subtree
 * included (`run.children`), so a run cannot outspend its cap by delegating.
 */
export const runBudgets: BehaviorPolicy<null> = {
  name: 'run-budgets',
  enabled(behavior) {
    const { maxCost, maxTokens, maxWall } = limits(behavior)
    return maxCost !== undefined || maxTokens !== undefined || maxWall !== undefined
  },
  afterTurn({ behavior, run }) {
    const { maxCost, maxTokens, maxWall } = limits(behavior)
    let cost = 0
    let tokens = 0
    // Side-band calls (compaction summaries) are real spend: they count like turns.
    for (const usage of [...run.usage, ...run.sideCalls]) {
      cost += usage.cost ?? 0
      tokens += usage.input + usage.output
    }
    // A child's stats already sum its own subtree (cache tokens apart, as for a turn).
    for (const { stats } of run.children) {
      cost += stats.cost ?? 0
      tokens += stats.totalIn + stats.totalOut
    }
    if (maxCost !== undefined && cost > maxCost)
      return { decision: { type: 'fail', error: new AgentBudgetExceededError('cost', maxCost, cost) } }
    if (maxTokens !== undefined && tokens > maxTokens)
      return { decision: { type: 'fail', error: new AgentBudgetExceededError('tokens', maxTokens, tokens) } }
    if (maxWall === undefined)
      return undefined
    // Answered synchronously when the clock is: a phase that returns a promise is bounded by
    // `maxWallMs` in real time, and this check must read the run's clock, not race it.
    const now = run.clock.now()
    return typeof now === 'number' ? checkWall(maxWall, now - run.startedAt) : now.then(time => checkWall(maxWall, time - run.startedAt))
  },
}

function checkWall(maxWall: number, elapsed: number): PhaseResult<TurnDecision, null> | undefined {
  return elapsed > maxWall ? { decision: { type: 'fail', error: new AgentBudgetExceededError('wallClock', maxWall, elapsed) } } : undefined
}
