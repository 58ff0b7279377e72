import type { HookHandler, RunHookContext } from '../core/hook-context'
import type { ToolBudgetMode } from '../knobs/budget-knobs'

/** `tool-budget:exceeded`: a call was made past its tool's `toolBudgets` entry. */
export interface ToolBudgetExceededContext extends RunHookContext {
  turnId: string
  callId: string
  /** Canonical tool name. */
  tool: string
  input: Readonly<Record<string, unknown>>
  max: number
  /** Calls of the tool dispatched in this run before this one. */
  count: number
  /** `'block'`: the call was refused with `message`; `'steer'`: it runs and `message` reaches the model after the turn. */
  mode: ToolBudgetMode
  message: string
}

/** One tool's share of a turn's output, as `budget:exceeded` reports it. */
export interface ToolOutputShare {
  callId: string
  /** Canonical tool name. */
  tool: string
  /** Text-budget size (`toolOutputBudgetByteLength`). */
  bytes: number
}

/** `budget:exceeded`: a turn's tool output went past `toolOutputBudget`; the summarize nudge joins the next turn. */
export interface OutputBudgetExceededContext extends RunHookContext {
  turnId: string
  turn: number
  /** The `toolOutputBudget` in bytes. */
  budget: number
  /** Bytes counted this turn (excluded tools left out). */
  totalBytes: number
  /** The counted results, in call order. */
  outputs: ToolOutputShare[]
  /** The nudge sent to the model. */
  message: string
}

/**
 * Events of the budget policies (`src/policies/tool-budgets.ts`,
 * `tool-output-budget.ts`). Declared here, beside the run's own events,
 * because the policies sit above the bus.
 */
export interface BudgetHooks {
  'tool-budget:exceeded': HookHandler<ToolBudgetExceededContext>
  'budget:exceeded': HookHandler<OutputBudgetExceededContext>
}
