/**
 * Durable runs: a run that survives its process. `checkpointRuntime()` keeps
 * a run in its session store; a replay-mode runtime (Restate's, or a host's
 * own journal) replays journaled model and tool results instead of running
 * them again. Give one to `createAgent({ durable })`. See docs/durable.md.
 *
 * @module zidane/durable
 */

export { DurablePayloadTooLargeError, SessionLeaseError } from '../errors'
export type { StagedToolState, ToolStateOp } from '../tool-state/types'
export { stagedToolState } from '../tool-state/view'
export type { DurableToolDef } from '../tools/types'
export { checkpointRuntime } from './checkpoint'
export type { CheckpointRuntimeOptions } from './checkpoint'
export { durableEffects } from './effects'
export { restateAgent } from './restate/agent-object'
export type { RestateAgentHandlers, RestateAgentOptions, RestateRunInput } from './restate/agent-object'
export { RestateClockError, restateRuntime } from './restate/runtime'
export type { RestateRuntimeOptions } from './restate/runtime'
export { RestateInputError } from './restate/terminal'
export { DEFAULT_MAX_ENTRY_BYTES } from './types'
export type { DurableMode, DurableRuntime } from './types'
