/**
 * `zidane/chat`: what chat hosts (an interactive product, a terminal
 * front end) share on top of the agent: the usual tools to leave out of the
 * output budget, and the auto-compaction trigger a host asks between runs.
 * The root entry re-exports both, so existing imports keep working.
 *
 * @module zidane/chat
 */

/** Context-loading tools to leave out of `toolOutputBudget` (`behavior.toolOutputBudgetExcludeTools`). */
export { DEFAULT_BUDGET_EXCLUDE_TOOLS } from '../knobs/budget-knobs'
/** Whether a turn's input has crossed the auto-compaction threshold of a window (the loop's own trigger). */
export { shouldAutoCompact } from '../policies/compact-summary'
