import type { BehaviorPolicy } from './policy'
import { AgentBudgetExceededError } from '../errors'
import { activeLimit } from '../knobs/behavior'

/**
 * Run budgets (`maxCostUsd`, `maxTotalTokens`, `maxWallMs`), checked after
 * every turn, once that turn's tool results are recorded, so a budget stop
 * never leaves a tool call without its result. A soft cap: the turn that
 * crosses the line completes first.
 */
export const runBudgets: BehaviorPolicy = {
  name: 'run-budgets',
  attach(ctx) {
    const maxCost = activeLimit(ctx.behavior.maxCostUsd)
    const maxTokens = activeLimit(ctx.behavior.maxTotalTokens)
    const maxWall = activeLimit(ctx.behavior.maxWallMs)
    if (maxCost === undefined && maxTokens === undefined && maxWall === undefined)
      return

    return ctx.hooks.hook('turn:after', async () => {
      let cost = 0
      let tokens = 0
      for (const usage of ctx.run.usage) {
        cost += usage.cost ?? 0
        tokens += usage.input + usage.output
      }
      if (maxCost !== undefined && cost > maxCost)
        throw new AgentBudgetExceededError('cost', maxCost, cost)
      if (maxTokens !== undefined && tokens > maxTokens)
        throw new AgentBudgetExceededError('tokens', maxTokens, tokens)
      if (maxWall !== undefined) {
        const elapsed = (await ctx.run.clock.now()) - ctx.run.startedAt
        if (elapsed > maxWall)
          throw new AgentBudgetExceededError('wallClock', maxWall, elapsed)
      }
    })
  },
}
