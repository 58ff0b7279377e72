import type { SessionTurn } from '../core/content'
import type { HookHandler, RunHookContext } from '../core/hook-context'
import type { StopReason } from '../core/stop-reason'
import type { SessionEndStatus } from './types'

/** `session:start`: a run starts recording into this session. */
export interface SessionHookContext extends RunHookContext {
  sessionId: string
}

/** `session:turns`: turns were written to the store. */
export interface SessionTurnsContext extends SessionHookContext {
  /** The turns just written to the store, in order. */
  turns: readonly SessionTurn[]
}

/** `session:end`: the run record was closed with this status. */
export interface SessionEndContext extends SessionHookContext {
  status: SessionEndStatus
  stopReason?: StopReason
}

/** The events of recording a run into a session. */
export interface SessionHooks {
  'session:start': HookHandler<SessionHookContext>
  'session:turns': HookHandler<SessionTurnsContext>
  'session:end': HookHandler<SessionEndContext>
}

/** The session events by name; `satisfies` keeps it in step with `SessionHooks`. */
export const SESSION_HOOK_NAMES = {
  'session:start': true,
  'session:turns': true,
  'session:end': true,
} as const satisfies Record<keyof SessionHooks, true>
