export { createToolStateController } from './controller'
export { createMemoryToolStateStore } from './memory-store'
export type { MemoryToolStateStoreOptions } from './memory-store'
export { DEFAULT_MAX_VALUE_BYTES } from './types'
export type {
  AgentToolState,
  StagedToolState,
  ToolStateCommitResult,
  ToolStateController,
  ToolStateOp,
  ToolStateStore,
  ToolStateView,
} from './types'
export { stagedToolState } from './view'
