/**
 * `zidane/chat`: what chat hosts (an interactive product, a terminal front
 * end, a job runner) share on top of the agent: the built-in chat profiles and
 * the knobs a host resolves per session, a one-prompt headless runner, the
 * usual tools to leave out of the output budget, and the auto-compaction
 * trigger a host asks between runs. The root entry re-exports the last two,
 * so existing imports keep working.
 *
 * @module zidane/chat
 */

/** Context-loading tools to leave out of `toolOutputBudget` (`behavior.toolOutputBudgetExcludeTools`). */
export { DEFAULT_BUDGET_EXCLUDE_TOOLS } from '../knobs/budget-knobs'
/** Agent Plugins: `loadAgentPlugin(dir, { dataDir })` reads a plugin's manifest, MCP servers and skills. */
export { AgentPluginError, loadAgentPlugin, MAX_PLUGIN_SERVERS, PLUGIN_FILE_MAX_BYTES, PLUGIN_MCP_SCHEMA_1_0, PLUGIN_SCHEMA_1_0 } from '../plugins'
export type { AgentPlugin, AgentPluginManifest, AgentPluginProblem, LoadAgentPluginOptions } from '../plugins'
/** Whether a turn's input has crossed the auto-compaction threshold of a window (the loop's own trigger). */
export { shouldAutoCompact } from '../policies/compact-summary'
export { HEADLESS_BEHAVIOR, runHeadless } from './headless'
export type { HeadlessOptions } from './headless'
export { chatPersistDir, chatTasksDir, resolveChatProfile } from './host'
export type { ChatSessionPlaces } from './host'
export {
  CHAT_BEHAVIOR,
  CHAT_MAX_IMAGE_EDGE,
  CHAT_MEDIA_BUDGET,
  CHAT_PERSIST_EXCLUDE_TOOLS,
  CHAT_PERSIST_THRESHOLD,
  chatProfiles,
} from './profiles'
export type { ChatProfileName } from './profiles'
export type { ChatProfile } from './types'
