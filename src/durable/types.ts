export { DEFAULT_MAX_ENTRY_BYTES } from '../core/durable-runtime'
export type { DurableMode, DurableRuntime } from '../core/durable-runtime'
