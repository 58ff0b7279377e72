import type { ToolOutputShare } from '../hooks/budget-hooks'
import type { BehaviorPolicy } from './policy'
import { activeLimit } from '../knobs/behavior'
import { toolOutputBudgetByteLength } from '../session/tool-output'
import { nudge } from './policy'

function summarizeText(total: number, budget: number): string {
  return `The tool results of your last turn came to ${total} bytes, over this run's budget of ${budget} bytes per turn. `
    + 'Before calling more tools, summarize in a few lines what those results told you that matters for the task; '
    + 'then continue with narrower calls (a smaller range, a more specific pattern or path).'
}

/**
 * `toolOutputBudget`: after a turn whose tool results (as recorded: after
 * `tool:transform` and the result phase) add up to more than the budget, in
 * `toolOutputBudgetByteLength` bytes, one nudge asks the model to summarize
 * before calling more tools, and `budget:exceeded` fires. Tools named in
 * `toolOutputBudgetExcludeTools` are not counted. `0` or unset: off.
 */
export const toolOutputBudget: BehaviorPolicy<null> = {
  name: 'tool-output-budget',
  events: ['budget:exceeded'],
  enabled: behavior => activeLimit(behavior.toolOutputBudget) !== undefined,
  afterTurn({ behavior, assistant, toolResults, turnId, turn }) {
    if (toolResults.length === 0)
      return
    const budget = activeLimit(behavior.toolOutputBudget)!
    const exclude = behavior.toolOutputBudgetExcludeTools ?? []
    const names = new Map<string, string>()
    for (const block of assistant.content) {
      if (block.type === 'tool_call')
        names.set(block.id, block.name)
    }
    const outputs: ToolOutputShare[] = []
    let totalBytes = 0
    for (const result of toolResults) {
      const tool = names.get(result.callId) ?? ''
      if (exclude.includes(tool))
        continue
      const bytes = toolOutputBudgetByteLength(result.output)
      outputs.push({ callId: result.callId, tool, bytes })
      totalBytes += bytes
    }
    if (totalBytes <= budget)
      return
    const message = summarizeText(totalBytes, budget)
    return {
      decision: nudge(message, 'tool-output-budget'),
      events: [{ hook: 'budget:exceeded', context: { turnId, turn, budget, totalBytes, outputs, message } }],
    }
  },
}
