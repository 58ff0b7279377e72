/** The `shell` tool's knobs: background mode and the long-timeout steer. */

import { defineKnobs, either, isBoolean, isLimit, isString, oneOf } from './define'

/** Background tasks and blocking-call steering of the built-in `shell` tool. */
export interface ShellKnobs {
  /** Absolute directory for background task logs; background mode is off without it. */
  tasksDir?: string
  /** Hide background mode from `shell` (`'non-durable'`: unless the context's tasks survive a restart). */
  disableBackgroundTasks?: boolean | 'non-durable'
  /** Byte cap per background task log; the task keeps running past it. */
  backgroundOutputCap?: number
  /** Silence (ms) after which a background task is reported stalled (`background:stall`). */
  backgroundStallWatchdogMs?: number
  /** A foreground `shell` timeout above this is refused in favor of background mode, when that is available. */
  shellLongTimeoutMs?: number
}

/** Defaults of the shell slice. */
export const SHELL_DEFAULTS = Object.freeze({
  disableBackgroundTasks: false,
} satisfies ShellKnobs)

/** The shell slice. */
export const SHELL_KNOBS = defineKnobs<ShellKnobs, typeof SHELL_DEFAULTS>('shell', SHELL_DEFAULTS, {
  tasksDir: { doc: 'Absolute directory for background task logs; background mode is off without it.', defaultLabel: 'off', check: isString },
  disableBackgroundTasks: { doc: 'Hide background mode from `shell`; `\'non-durable\'` only where tasks would not survive a restart.', check: either(isBoolean, oneOf('non-durable')) },
  backgroundOutputCap: { doc: 'Byte cap per background task log; the task keeps running past it.', defaultLabel: 'no cap', check: isLimit },
  backgroundStallWatchdogMs: { doc: 'Silence after which a background task is reported stalled (`background:stall`).', defaultLabel: 'off', check: isLimit },
  shellLongTimeoutMs: { doc: 'A foreground `shell` timeout above this is refused in favor of background mode, when available.', defaultLabel: 'off', check: isLimit },
})
