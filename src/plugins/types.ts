import type { McpServerConfig } from '../mcp/types'
import type { SkillConfig } from '../skills/types'

/** The `plugin.json` manifest of an Agent Plugin (its portable fields). */
export interface AgentPluginManifest {
  readonly $schema: string
  readonly name: string
  readonly version?: string
  readonly description?: string
  readonly author?: { readonly name?: string, readonly email?: string, readonly url?: string }
  readonly homepage?: string
  readonly repository?: string
  readonly license?: string
  readonly keywords?: readonly string[]
  /** Client-specific data by reverse-domain namespace; zidane implements none and reads none. */
  readonly extensions?: Readonly<Record<string, unknown>>
}

/** Part of a plugin left out, and why: the rest of the plugin still loads. */
export interface AgentPluginProblem {
  /** What it concerns: the manifest (an ignored field), `mcp.json` as a whole, one server entry, the skills folder, or one skill. */
  readonly component: 'manifest' | 'mcp' | 'server' | 'skills' | 'skill'
  /** The server's key, or the skill's name, when the problem is about one. */
  readonly name?: string
  /** The file or directory concerned. */
  readonly path?: string
  readonly reason: string
}

/** A loaded plugin: what to hand `createAgent` (`mcpServers`, `skills`) and what was left out. */
export interface AgentPlugin {
  readonly manifest: AgentPluginManifest
  /** The plugin root, resolved (`PLUGIN_ROOT`). */
  readonly root: string
  /** The plugin's data directory, resolved and created (`PLUGIN_DATA`). */
  readonly dataDir: string
  /**
   * Its MCP servers (from `mcp.json`), placeholders expanded by the plugin
   * rules and marked `preExpanded`; remote servers carry `pinHeaderOrigin`.
   */
  readonly mcpServers: readonly McpServerConfig[]
  /** Its skills (from `skills/`), checked, in name order. */
  readonly skills: readonly SkillConfig[]
  /** Everything reported and left out. */
  readonly problems: readonly AgentPluginProblem[]
}

/** Options of `loadAgentPlugin`. */
export interface LoadAgentPluginOptions {
  /**
   * The plugin's own persistent data directory (`PLUGIN_DATA`), created when
   * missing. Keep one per installed plugin, outside the plugin root, and keep
   * it across plugin updates.
   */
  readonly dataDir: string
}
