import type { ToolBudget, ToolBudgetMode } from '../knobs/budget-knobs'
import type { BatchCall, BehaviorPolicy, CallDecision, PolicyEvent } from './policy'
import { mergeObjects } from '../core/merge-objects'
import { debugLog } from '../debug'
import { nudge } from './policy'

/** Per-tool dispatched counts of this run, and the steer messages owed after the current turn. */
export interface ToolBudgetsState {
  readonly counts: Readonly<Record<string, number>>
  /** One nudge per tool per turn: the first call past the cap of that turn words it. */
  readonly steers: readonly { readonly tool: string, readonly message: string }[]
}

function steerText(tool: string, max: number, count: number): string {
  return `You have now called ${tool} ${count + 1} times in this run; its budget is ${max}. `
    + `Stop calling ${tool}: work with what its earlier results gave you, or take a different approach.`
}

function blockText(tool: string, max: number): string {
  return `${tool} has used its budget of ${max} call${max === 1 ? '' : 's'} for this run. `
    + 'Work with the results you already have, or take a different approach.'
}

/** The mode and text for a call past its budget; a function that throws or answers nonsense falls back to the default steer. */
function exceed(budget: ToolBudget, call: BatchCall, count: number): { mode: ToolBudgetMode, message: string } {
  const onExceed = budget.onExceed ?? 'steer'
  if (typeof onExceed !== 'function')
    return { mode: onExceed, message: onExceed === 'block' ? blockText(call.name, budget.max) : steerText(call.name, budget.max, count) }
  try {
    const chosen = onExceed({ tool: call.name, max: budget.max, count, callId: call.callId, input: call.input })
    if ((chosen?.mode === 'steer' || chosen?.mode === 'block') && typeof chosen.message === 'string' && chosen.message !== '')
      return { mode: chosen.mode, message: chosen.message }
  }
  catch (error) {
    debugLog(`toolBudgets.${call.name}.onExceed threw; steering with the default text`, error)
  }
  return { mode: 'steer', message: steerText(call.name, budget.max, count) }
}

/**
 * `toolBudgets`: run-cumulative call budgets per canonical tool name. Counted
 * in the batch gate, which sees every call of a turn before any runs, so a
 * parallel batch cannot slip past the cap (five calls against `max: 3`: three
 * run). Calls an earlier gate or the loop already refused are not counted;
 * replays (a substitute answer) are. The host's `tool:gate` runs later, per
 * call: a call it refuses is given back in the result phase, so it does not
 * use up the budget of the turns that follow. Past the cap, `'block'` refuses the call
 * and `'steer'` lets it run and nudges the model after the turn (one message
 * per tool per turn). Every call past the cap fires `tool-budget:exceeded`.
 * A subagent's run has its own counts.
 */
export const toolBudgets: BehaviorPolicy<ToolBudgetsState> = {
  name: 'tool-budgets',
  events: ['tool-budget:exceeded'],
  enabled: behavior => behavior.toolBudgets !== undefined && Object.keys(behavior.toolBudgets).length > 0,
  initialState: () => ({ counts: {}, steers: [] }),
  gateBatch({ behavior, state, turnId, calls }) {
    const budgets = behavior.toolBudgets!
    let counts: Record<string, number> | undefined
    const steers = [...state.steers]
    const decisions: (CallDecision | undefined)[] = []
    const events: PolicyEvent[] = []
    calls.forEach((call, index) => {
      const budget = Object.hasOwn(budgets, call.name) ? budgets[call.name] : undefined
      if (!budget || call.decided?.type === 'block' || call.decided?.type === 'abort')
        return
      counts ??= { ...state.counts }
      const count = counts[call.name] ?? 0
      if (count >= budget.max) {
        const { mode, message } = exceed(budget, call, count)
        events.push({ hook: 'tool-budget:exceeded', context: { turnId, callId: call.callId, tool: call.name, input: call.input, max: budget.max, count, mode, message } })
        if (mode === 'block') {
          decisions[index] = { type: 'block', reason: message }
          return
        }
        if (!steers.some(steer => steer.tool === call.name))
          steers.push({ tool: call.name, message })
      }
      counts[call.name] = count + 1
    })
    if (!counts)
      return
    return { decisions, events, state: { counts, steers } }
  },
  result({ behavior, state, call, answer }) {
    // Only a call that reached the host's gate can be refused by it, and such a call was counted
    // above (the batch gate blocked nothing that reaches it).
    if (answer.kind !== 'refused' || answer.by !== 'host' || !Object.hasOwn(behavior.toolBudgets!, call.name))
      return
    const count = state.counts[call.name] ?? 0
    if (count === 0)
      return
    return { state: { counts: mergeObjects(state.counts, { [call.name]: count - 1 }), steers: state.steers } }
  },
  afterTurn({ state }) {
    if (state.steers.length === 0)
      return
    return { state: { counts: state.counts, steers: [] }, decision: state.steers.map(steer => nudge(steer.message, 'tool-budget')) }
  },
}
