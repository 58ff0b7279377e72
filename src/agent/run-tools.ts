import type { ExecutionContext } from '../contexts/types'
import type { AgentBehavior } from '../knobs/behavior'
import type { ToolDisclosure, ToolRegistry } from '../tools/registry'
import type { ToolMap } from '../tools/types'
import { mergeObjects } from '../core/merge-objects'
import { createToolRegistry } from '../tools/registry'
import { resolveShellSpec, taskToolsFor } from '../tools/shell/recognition'
import { backgroundAvailability, shellBehaviorOf } from '../tools/shell/settings'

/**
 * The tools one run offers. The built-in `shell` shows its background-mode
 * schema only when background mode is available in this run (behavior plus
 * the execution context's capabilities), and then the task tools
 * (`wait_task`, `list_tasks`, `kill_task`) come with it, unless the host
 * already has tools of those names.
 */
export function prepareRunTools(
  tools: ToolMap | undefined,
  aliases: Record<string, string> | undefined,
  behavior: AgentBehavior,
  execution: ExecutionContext,
  disclosure?: ToolDisclosure,
): ToolRegistry {
  const all = withTaskTools(tools, behavior, execution)
  return createToolRegistry(all, aliases, def => resolveShellSpec(def, behavior, execution.capabilities), disclosure)
}

function withTaskTools(tools: ToolMap | undefined, behavior: AgentBehavior, execution: ExecutionContext): ToolMap | undefined {
  if (!tools)
    return tools
  const defs = Object.values(tools)
  const taskTools = taskToolsFor(defs)
  if (!taskTools || !backgroundAvailability(shellBehaviorOf(behavior), execution.capabilities).available)
    return tools
  const taken = new Set(defs.map(def => def.spec.name))
  const extra = Object.fromEntries(Object.entries(taskTools).filter(([, def]) => !taken.has(def.spec.name)))
  return mergeObjects(tools, extra)
}
