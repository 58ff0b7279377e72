export { DEFAULT_SHELL_OUTPUT_BYTES, droppedBytesMarker, formatShellResult, truncateOutput } from './output'
export { isShellTool, resolveShellSpec } from './recognition'
export { backgroundAvailability, shellBehaviorOf } from './settings'
export type { BackgroundAvailability, ShellBehavior } from './settings'
export { createShellTool, DEFAULT_SHELL_TIMEOUT_MS, shell } from './shell'
export type { BackgroundStallSink, ShellInput, ShellToolOptions } from './shell'
export {
  createKillTaskTool,
  createListTasksTool,
  createWaitTaskTool,
  DEFAULT_WAIT_TASK_TIMEOUT_MS,
  killTask,
  listTasks,
  taskTools,
  waitTask,
} from './task-tools'
export type { KillTaskInput, WaitTaskInput } from './task-tools'
