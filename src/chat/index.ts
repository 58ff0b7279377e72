/**
 * `zidane/chat`: what chat hosts (an interactive product, a terminal
 * front end) share on top of the agent: the shape of a chat profile, the
 * usual tools to leave out of the output budget, and the auto-compaction
 * trigger a host asks between runs. The root entry re-exports the two
 * values, so existing imports keep working.
 *
 * @module zidane/chat
 */

import type { AgentProfile } from '../agent/options'
import type { AgentBehavior } from '../knobs/behavior'

/** Context-loading tools to leave out of `toolOutputBudget` (`behavior.toolOutputBudgetExcludeTools`). */
export { DEFAULT_BUDGET_EXCLUDE_TOOLS } from '../knobs/budget-knobs'
/** Agent Plugins: `loadAgentPlugin(dir, { dataDir })` reads a plugin's manifest, MCP servers and skills. */
export { AgentPluginError, loadAgentPlugin, MAX_PLUGIN_SERVERS, PLUGIN_FILE_MAX_BYTES, PLUGIN_MCP_SCHEMA_1_0, PLUGIN_SCHEMA_1_0 } from '../plugins'
export type { AgentPlugin, AgentPluginManifest, AgentPluginProblem, LoadAgentPluginOptions } from '../plugins'
/** Whether a turn's input has crossed the auto-compaction threshold of a window (the loop's own trigger). */
export { shouldAutoCompact } from '../policies/compact-summary'

/**
 * A chat product's mode ("plan", "build", a reviewer): a profile that always
 * says how it behaves. Run with it (`agent.run({ profile })`) and it is one
 * layer of the run's plan, between the agent and the run.
 */
export interface ChatProfile extends AgentProfile {
  readonly behavior: AgentBehavior
}
