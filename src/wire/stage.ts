import type { SessionMessage } from '../core/content'

/** What a wire stage may read about the request it shapes, besides the messages. */
export interface WireStageContext {
  /** The turn being prepared (1 for the first model call of the run). */
  readonly turn: number
  /** Provider and model serving this turn (a fallback changes them). */
  readonly providerName: string
  readonly model: string
}

/**
 * One pure step of the wire pipeline: messages in, messages out. A stage never
 * edits its input (the turns it sees are the session's own); it returns the
 * same array when it changes nothing, so later stages and the memo layer can
 * tell. Policies contribute stages; the pipeline orders them with its own.
 */
export interface WireStage {
  /** Names the stage in debug output, errors and ordering. */
  readonly name: string
  apply: (messages: readonly SessionMessage[], ctx: WireStageContext) => readonly SessionMessage[]
}
