/**
 * How the agent recognizes a shell tool and what comes with one, without
 * loading the tool definitions themselves (they build zod schemas at load):
 * the agent asks on every run, most agents have no shell tool, and a host
 * that has one has already loaded `shell.ts`, which registers it here.
 */

import type { ContextCapabilities } from '../../contexts/types'
import type { ToolSpec } from '../../providers/types'
import type { ToolDef, ToolMap } from '../types'
import { backgroundAvailability, shellBehaviorOf } from './settings'

/** What `createShellTool` registers for each shell tool it builds. */
export interface ShellToolRecord {
  /** The spec without background mode. */
  foreground: ToolSpec
  /** The spec with `run_in_background` and its paragraphs. */
  background: ToolSpec
  /** The task tools (`wait_task`, `list_tasks`, `kill_task`) offered beside it when background mode is on. */
  taskTools: ToolMap
}

// Keyed by the def (identity, as the agent checks), so a copy of a def is not a shell tool.
const shellTools = new WeakMap<ToolDef, ShellToolRecord>()

/** Record a def as a shell tool; called by `createShellTool`. */
export function registerShellTool(def: ToolDef, record: ShellToolRecord): void {
  shellTools.set(def, record)
}

/** Whether `def` is a shell tool built by `createShellTool` (the exported `shell` included). */
export function isShellTool(def: ToolDef): boolean {
  return shellTools.has(def)
}

/**
 * The spec the model should see for `def` in a run: shell tools expose
 * `run_in_background` (and its paragraphs) only when background mode is
 * available; any other tool keeps its own spec.
 */
export function resolveShellSpec(def: ToolDef, behavior: object, capabilities: ContextCapabilities): ToolSpec {
  const record = shellTools.get(def)
  if (!record)
    return def.spec
  return backgroundAvailability(shellBehaviorOf(behavior), capabilities).available ? record.background : record.foreground
}

/** The task tools registered with the first shell tool among `defs`, if there is one. */
export function taskToolsFor(defs: readonly ToolDef[]): ToolMap | undefined {
  for (const def of defs) {
    const record = shellTools.get(def)
    if (record)
      return record.taskTools
  }
  return undefined
}
