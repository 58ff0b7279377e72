/**
 * The chunks of a Chat Completions response body, and whether the body
 * reached its `data: [DONE]` line.
 *
 * Some servers (Snowflake Cortex, several gateways) never put a
 * `finish_reason` on any choice: the last chunk carries usage, then `[DONE]`,
 * then the body ends. Such a stream is complete; one whose connection closed
 * half-way is not, and the chunks alone cannot tell the two apart. The
 * `openai` client's `Stream` reads the `[DONE]` line and drops it, so the raw
 * body is read here instead, by zidane's own event-stream parser
 * (`../shared/event-stream.ts`: the client's parser is internal and may be renamed in any
 * release of the range zidane accepts). The rest follows the client's
 * `Stream`: each message is JSON, a message carrying `error` is thrown as the
 * client's `APIError`, anything after `[DONE]` is ignored
 * (`../shared/openai-sse-message.ts`, shared with the Responses reader).
 *
 * A connection that drops before `[DONE]` either fails the body read (thrown,
 * and classified as a network error) or ends the body early, in which case
 * `sawDone()` stays false and the turn counts as cut off.
 */

import type { OpenAIStreamState } from '../shared/openai-sse-message'
import type { StreamCallbacks, TurnResult } from '../types'
import type { ChatStreamContext } from './stream'
import { readEventStream } from '../shared/event-stream'
import { NO_DATA, openAIStreamData } from '../shared/openai-sse-message'
import { ChatTurnReader } from './stream'
import { energyJoulesOf } from './usage'

/** Longest energy comment read; anything longer is not the small object Neuralwatt sends and is skipped unparsed. */
const MAX_ENERGY_COMMENT = 64 * 1024

const ENERGY_PREFIX = 'energy '

interface ChunkState extends OpenAIStreamState {
  energy: number | undefined
}

/** What the caller knows of a turn; the body itself says whether it reached `[DONE]` and what energy it reported. */
export type ChatBodySettings = Omit<ChatStreamContext, 'sawDone' | 'energyJoules'>

/**
 * Read a streaming Chat Completions response to its end and return its turn.
 * Each network read is parsed and its chunks handed to a `ChatTurnReader` at
 * once, with no iterator between the two.
 */
export async function readChatTurn(response: Response, callbacks: StreamCallbacks, settings: ChatBodySettings): Promise<TurnResult> {
  const provider = settings.providerName
  const state: ChunkState = { done: false, energy: undefined }
  const turn = new ChatTurnReader(callbacks, {
    model: settings.model,
    providerName: provider,
    usageFields: settings.usageFields,
    sawDone: () => state.done,
    energyJoules: () => state.energy,
  })
  await readEventStream(response.body, (_event, message) => {
    const chunk = openAIStreamData(message, provider, state, response.headers)
    if (chunk !== NO_DATA)
      turn.handle(chunk)
  }, { provider, onComment: text => readEnergyComment(text, state) })
  return turn.finish()
}

/** Add the joules of one `energy {…}` comment; any other comment, or one that does not parse, is ignored. */
function readEnergyComment(text: string, state: ChunkState): void {
  if (!text.startsWith(ENERGY_PREFIX) || text.length > MAX_ENERGY_COMMENT)
    return
  let report: unknown
  try {
    report = JSON.parse(text.slice(ENERGY_PREFIX.length))
  }
  catch {
    return
  }
  const joules = energyJoulesOf(report)
  if (joules !== undefined)
    state.energy = (state.energy ?? 0) + joules
}
