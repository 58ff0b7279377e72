/**
 * `zidane/session`: sessions that record runs and let them resume, and the stores that keep them.
 *
 * @module zidane/session
 */

export type { SessionTurn } from '../core/content'
export { checkRunState, parseRunState, RUN_STATE_VERSION, serializeRunState } from '../core/run-state'
export type { RunReadState, RunState, RunStateSource, RunStateTarget } from '../core/run-state'
export { filterUnresolvedToolUses } from '../wire/pairing'
/**
 * `zidane/session`: conversations that outlive a run and survive a crash.
 *
 *   const session = await createSession({ store: createFileStore({ dir: '.zidane/sessions' }) })
 *   const agent = createAgent({ provider, session })
 */
export { createSession, loadSession } from './session'
export type { CreateSessionOptions, LoadSessionOptions, Session } from './session'
export { createFileStore, createMemoryStore, createRemoteStore, createSessionStoreHandler, DEFAULT_REMOTE_MAX_RESPONSE_BYTES } from './stores'
export type * from './stores'
export { catalogChangeNotes, latestSystemSnapshot, systemSnapshotTurn } from './system-freeze'
export type { FrozenPromptSections, SystemFreezeOptions, SystemPromptSnapshot } from './system-freeze'
export { SESSION_FORMAT_VERSION } from './types'
export type { CreateSessionRecord, SessionData, SessionEndStatus, SessionLease, SessionLeaseOrigin, SessionLoadOptions, SessionRun, SessionRunAgent, SessionRunOrigin, SessionRunUsage, SessionStore, SessionWriteOptions, SkippedSessionRecord } from './types'
