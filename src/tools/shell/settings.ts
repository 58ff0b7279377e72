/**
 * The behavior knobs the shell tools read, and the one decision they share:
 * is background mode on for this call? The schema the model sees and the
 * checks `execute` makes both come from `backgroundAvailability`, so they
 * cannot disagree.
 */

import type { ContextCapabilities } from '../../contexts/types'
import type { AgentBehavior } from '../../knobs/behavior'

/** Fields of `AgentBehavior` the shell tools read. */
export type ShellBehavior = Pick<AgentBehavior, 'tasksDir' | 'disableBackgroundTasks' | 'backgroundOutputCap' | 'backgroundStallWatchdogMs' | 'shellLongTimeoutMs'>

function numberField(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** Read the shell knobs from a run's behavior, ignoring values of the wrong type. */
export function shellBehaviorOf(behavior: object): ShellBehavior {
  const raw = behavior as Record<string, unknown>
  const disable = raw.disableBackgroundTasks
  return {
    tasksDir: typeof raw.tasksDir === 'string' && raw.tasksDir !== '' ? raw.tasksDir : undefined,
    disableBackgroundTasks: disable === true || disable === 'non-durable' ? disable : undefined,
    backgroundOutputCap: numberField(raw.backgroundOutputCap),
    backgroundStallWatchdogMs: numberField(raw.backgroundStallWatchdogMs),
    shellLongTimeoutMs: numberField(raw.shellLongTimeoutMs),
  }
}

export type BackgroundAvailability
  = | { available: true, tasksDir: string }
    | { available: false, reason: string }

export function backgroundAvailability(settings: ShellBehavior, capabilities: ContextCapabilities): BackgroundAvailability {
  if (settings.disableBackgroundTasks === true)
    return { available: false, reason: 'Background tasks are disabled for this agent.' }
  if (settings.disableBackgroundTasks === 'non-durable' && capabilities.detachedTasks !== 'durable')
    return { available: false, reason: 'Background tasks are disabled: tasks in this execution context would not survive a restart.' }
  if (capabilities.detachedTasks === 'none')
    return { available: false, reason: 'This execution context cannot run background tasks.' }
  if (!settings.tasksDir)
    return { available: false, reason: 'Background mode is not available: no tasks directory is configured (behavior.tasksDir). Run the command in the foreground.' }
  return { available: true, tasksDir: settings.tasksDir }
}
