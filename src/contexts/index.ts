/**
 * `zidane/contexts`: where tools run. `createProcessContext` is the default
 * (the host, with process-group kill); `zidane/contexts/sandbox` and
 * `zidane/contexts/docker` hold the isolated ones.
 *
 * @module zidane/contexts
 */

export { ContextFileError, fileErrorCode, isNotFoundError } from './errors'
export type { ContextFileErrorCode } from './errors'
export { defaultExecutionContext, executionContextOf } from './from-tool-context'
export { DEFAULT_EXEC_OUTPUT_BYTES } from './output'
export { createProcessContext } from './process'
export type { ProcessContext, ProcessContextOptions } from './process'
export { DEFAULT_READ_FILE_MAX_BYTES } from './read-limit'
export { quoteShellArg, quoteShellCommand } from './shell-quote'
export { createTaskManager, openStreamedLog } from './tasks'
export type { LogSink, TaskManager, TaskRuntime } from './tasks'
export type {
  BackgroundTaskStatus,
  ContextCapabilities,
  ContextFiles,
  ContextHardening,
  ContextType,
  DetachedTasksCapability,
  DetachedTasksKind,
  DirEntry,
  ExecExit,
  ExecOptions,
  ExecResult,
  ExecStreamOptions,
  ExecutionContext,
  ExecutionHandle,
  FileStat,
  FileType,
  ReadFileOptions,
  SpawnConfig,
  TaskEntry,
  TaskExitInfo,
  TaskHandle,
  TaskOutputTail,
  TaskStallInfo,
  TaskStartOptions,
  TaskWaitOptions,
} from './types'
