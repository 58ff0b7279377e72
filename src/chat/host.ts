/**
 * The knobs a chat host fills in per session rather than per profile: where
 * large tool results and background-task logs of this session go, and the
 * context window of the model it picked.
 */

import type { ChatProfile } from './types'
import { isAbsolute, join } from 'node:path'
import { mergeObjects } from '../core/merge-objects'
import { truncateText } from '../text/truncate'
import { wellFormedText } from '../text/well-formed-text'

/** What `resolveChatProfile` needs to know about the session a profile runs in. */
export interface ChatSessionPlaces {
  /** The host's data folder (absolute): `tool-results/<sessionId>/` and `sessions/<sessionId>/tasks/` go under it. */
  readonly dataDir: string
  /** The session's id; one path segment (no `/`, `\`, NUL, not `.` or `..`, no lone surrogate, at most 255 UTF-8 bytes). */
  readonly sessionId: string
  /**
   * Context window (tokens) of the model the host picked for this session:
   * becomes `behavior.contextWindow`, which auto-compaction and window-relative
   * budgets read. Leave it out to keep the loop's own resolution (the model
   * target's window, then the provider's).
   */
  readonly contextWindow?: number
}

const UNSAFE_SEGMENT = /[/\\\0]/

/** Longest session id, in UTF-8 bytes: it is one folder name, which file systems cap at 255 bytes. */
const MAX_SESSION_ID_BYTES = 255

/** Where the session's persisted tool results go: `<dataDir>/tool-results/<sessionId>/`. */
export function chatPersistDir(places: Pick<ChatSessionPlaces, 'dataDir' | 'sessionId'>): string {
  checkPlaces(places)
  return join(places.dataDir, 'tool-results', places.sessionId)
}

/** Where the session's background-task logs go: `<dataDir>/sessions/<sessionId>/tasks/`. */
export function chatTasksDir(places: Pick<ChatSessionPlaces, 'dataDir' | 'sessionId'>): string {
  checkPlaces(places)
  return join(places.dataDir, 'sessions', places.sessionId, 'tasks')
}

/**
 * A profile made ready for one session: its behavior gains `persistDir`,
 * `tasksDir` and (when given) `contextWindow`, set as the spec's chat layer
 * sets them. Knobs the profile already sets win, so a host's own profile can
 * pin a folder. Call it when a session becomes active, and again when the
 * user switches model.
 */
export function resolveChatProfile(profile: ChatProfile, places: ChatSessionPlaces): ChatProfile {
  const { contextWindow } = places
  if (contextWindow !== undefined && (!Number.isInteger(contextWindow) || contextWindow <= 0))
    throw new RangeError(`resolveChatProfile: contextWindow must be a positive integer of tokens, got ${String(contextWindow)}`)
  const host = {
    persistDir: chatPersistDir(places),
    tasksDir: chatTasksDir(places),
    ...(contextWindow === undefined ? {} : { contextWindow }),
  }
  return Object.freeze(mergeObjects(profile, { behavior: Object.freeze(mergeObjects(host, profile.behavior)) }))
}

function checkPlaces({ dataDir, sessionId }: Pick<ChatSessionPlaces, 'dataDir' | 'sessionId'>): void {
  if (typeof dataDir !== 'string' || !isAbsolute(dataDir))
    throw new TypeError(`chat profile: dataDir must be an absolute path, got ${shortText(dataDir)}`)
  if (typeof sessionId !== 'string' || sessionId === '' || sessionId === '.' || sessionId === '..' || UNSAFE_SEGMENT.test(sessionId))
    throw new TypeError(`chat profile: sessionId must be one path segment, got ${shortText(sessionId)}`)
  // A lone surrogate is written to disk as U+FFFD: `a\uD800` and `a\uDBFF` would share one folder.
  if (wellFormedText(sessionId) !== sessionId)
    throw new TypeError(`chat profile: sessionId must be well-formed text (it has a lone surrogate), got ${shortText(sessionId)}`)
  if (Buffer.byteLength(sessionId, 'utf8') > MAX_SESSION_ID_BYTES)
    throw new TypeError(`chat profile: sessionId must be at most ${MAX_SESSION_ID_BYTES} UTF-8 bytes (one folder name), got ${sessionId.length} characters`)
}

/** A value for an error message: JSON, cut to 80 characters (an id from a request can be megabytes). */
function shortText(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${truncateText(text, 80)}…` : text
}
