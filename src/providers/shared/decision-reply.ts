/**
 * The answer object of a decision sent back as message text (the JSON-schema
 * modes of Chat Completions and Responses), or why there is none.
 */

import type { DecisionReply } from '../../decisions/types'
import { nestsDeeperThan } from '../../core/json-depth'
import { MAX_TOOL_INPUT_DEPTH } from '../tool-json'

/** The answer object from the message text, or why there is none. */
export function textReply(text: string, finishReason: string): DecisionReply['body'] {
  if (finishReason === 'content-filter')
    return { type: 'refusal', message: 'the model declined to answer' }
  if (finishReason === 'length')
    return { type: 'malformed', message: 'the answer was cut off at the output-token limit' }
  let value: unknown
  try {
    value = JSON.parse(text)
  }
  catch {
    return { type: 'malformed', message: text.trim() === '' ? 'the model sent no answer' : 'the answer is not JSON' }
  }
  // The same cap as tool arguments (the Anthropic decision arrives as one): a deeper value is never recorded.
  if (nestsDeeperThan(value, MAX_TOOL_INPUT_DEPTH))
    return { type: 'malformed', message: `the answer is nested more than ${MAX_TOOL_INPUT_DEPTH} levels deep` }
  return { type: 'answers', value }
}

/**
 * Whether a provider's client can be built now: building it is where a
 * missing key shows, so a decision is only offered when this holds.
 */
export function clientBuilds(client: () => unknown): boolean {
  try {
    client()
    return true
  }
  catch {
    return false
  }
}
