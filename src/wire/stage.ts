import type { SessionMessage } from '../core/content'

/** What a wire stage may read about the request it shapes, besides the messages. */
export interface WireStageContext {
  /** The turn being prepared (1 for the first model call of the run). */
  readonly turn: number
  /** Provider and model serving this turn (a fallback changes them). */
  readonly providerName: string
  readonly model: string
  /** The name the model knows a tool by (its alias), from its canonical name; fixed for a run. */
  readonly toolWireName: (canonical: string) => string
  /** The serving model's context window in tokens, when the run knows it (a fallback may change it). */
  readonly contextWindow?: number
  /**
   * The id of the recorded turn a base-view message came from (`undefined`
   * for a message an earlier stage made). Lets a stage act on what the
   * session says about its turns (a summary naming the turns it replaces).
   */
  readonly turnIdOf?: (message: SessionMessage) => string | undefined
  /** Most media blocks one request may carry at the serving provider, when its API has such a limit. */
  readonly maxMediaPerRequest?: number
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
  /**
   * `'message'` promises that the stage maps each message on its own: the
   * output for a message depends only on that message and on the context's
   * provider, model and tool names (not on `turn`), and the output of a list
   * is the outputs of its messages in order. The memo layer then runs the
   * stage only on messages it has not seen, one at a time. Without it the
   * stage sees the whole list and runs again whenever its input or context
   * changed.
   */
  readonly scope?: 'message'
}

/**
 * A stage that runs on what is about to be sent: after the host's
 * `context:transform` and before pairing repair (a knob that measures the
 * request as sent, such as tail compaction, or a host compactor). It may be
 * async. The same purity rules hold; it is always list-scoped.
 */
export interface SentWireStage {
  readonly name: string
  readonly slot: 'sent'
  apply: (messages: readonly SessionMessage[], ctx: WireStageContext) => readonly SessionMessage[] | Promise<readonly SessionMessage[]>
}

/** What a policy may contribute to the wire pipeline: a view stage (the default slot) or a sent stage. */
export type PolicyWireStage = WireStage | SentWireStage

/** Whether a policy stage runs in the sent slot. */
export function isSentStage(stage: PolicyWireStage): stage is SentWireStage {
  return (stage as SentWireStage).slot === 'sent'
}
