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
import { readEventData, readEventStream } from '../shared/event-stream'
import { NO_DATA, openAIStreamData } from '../shared/openai-sse-message'
import { energyJoulesOf } from './usage'

/** The parsed chunks, to iterate once, and what the body said about its end. */
export interface ChatChunks {
  chunks: AsyncIterable<unknown>
  /** True once the `[DONE]` line was read. */
  sawDone: () => boolean
  /** Joules the server reported in `: energy {…}` comment lines (Neuralwatt), once the chunks are read; `undefined` when none did. */
  energyJoules: () => number | undefined
}

/** Longest energy comment read; anything longer is not the small object Neuralwatt sends and is skipped unparsed. */
const MAX_ENERGY_COMMENT = 64 * 1024

const ENERGY_PREFIX = 'energy '

interface ChunkState extends OpenAIStreamState {
  energy: number | undefined
}

/** A response body to read once, handing each chunk on as it is parsed, and what it said about its end. */
export interface ChatBody {
  /** Read the body to its end, calling `onChunk` with each parsed chunk as soon as its message is complete. */
  read: (onChunk: (chunk: unknown) => void) => Promise<void>
  /** True once the `[DONE]` line was read. */
  sawDone: () => boolean
  /** As `ChatChunks.energyJoules`. */
  energyJoules: () => number | undefined
}

/** Read a streaming Chat Completions response as an iterator of chunks. `provider` names the server in errors. */
export function readChatChunks(response: Response, provider: string): ChatChunks {
  const state: ChunkState = { done: false, energy: undefined }
  return { chunks: parseMessages(response, provider, state), sawDone: () => state.done, energyJoules: () => state.energy }
}

/**
 * Read a streaming Chat Completions response with no iterator between the
 * parser and the reader of the chunks: each network read is parsed and its
 * chunks handed on at once (the same rules as `readChatChunks`).
 */
export function readChatBody(response: Response, provider: string): ChatBody {
  const state: ChunkState = { done: false, energy: undefined }
  const options = { provider, onComment: (text: string) => readEnergyComment(text, state) }
  return {
    read: onChunk => readEventStream(response.body, (_event, message) => {
      const chunk = openAIStreamData(message, provider, state, response.headers)
      if (chunk !== NO_DATA)
        onChunk(chunk)
    }, options),
    sawDone: () => state.done,
    energyJoules: () => state.energy,
  }
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

async function* parseMessages(response: Response, provider: string, state: ChunkState): AsyncGenerator<unknown> {
  for await (const message of readEventData(response.body, { provider, onComment: text => readEnergyComment(text, state) })) {
    const chunk = openAIStreamData(message, provider, state, response.headers)
    if (chunk !== NO_DATA)
      yield chunk
  }
}
