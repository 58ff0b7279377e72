/**
 * The events of the domains at or below the bus: the run's, the tools', the
 * session's, MCP's, decisions', the providers' and structured output's. The
 * bus keeps their names itself (`bus.ts`); `AgentEventMap` extends this with
 * the built-in policies' events and whatever a host merges in. Kept apart
 * from `AgentEventMap` so what a host merges never reaches the bus's list.
 */

import type { DecisionHooks } from '../decisions/hooks'
import type { McpHooks } from '../mcp/hooks'
import type { ProviderHooks } from '../providers/hooks'
import type { SessionHooks } from '../session/hooks'
import type { ToolHooks } from '../tools/hooks'
import type { OutputHooks } from '../tools/output-hooks'
import type { RunHooks } from './run-hooks'

/** The events of the bus's own domains. */
export interface DomainEvents extends RunHooks, ToolHooks, SessionHooks, McpHooks, DecisionHooks, ProviderHooks, OutputHooks {}
