/**
 * Chat Completions streams shaped like what particular vendors send, written
 * by hand from their documented and observed chunk formats: the extension
 * fields they add, where they put usage, how they end. Each function returns
 * the chunk objects; the fake server frames them as `data:` lines.
 */

const CREATED = 1_764_000_000

/**
 * Groq, compound model: every chunk carries `x_groq` (its request id on the
 * first), the last one finishes with `stop` and reports usage only under
 * `x_groq.usage`, with Groq's timing fields beside the token counts.
 * `standardUsage` adds the usage chunk that `include_usage` asks for, with other numbers.
 */
export function groqCompoundStream(options: { standardUsage?: boolean } = {}): unknown[] {
  const id = 'chatcmpl-2f8c1b7e-5d3a-4c11-9b0e-7a6f3d2c1e90'
  const base = { id, object: 'chat.completion.chunk', created: CREATED, model: 'groq/compound', system_fingerprint: 'fp_9a1c2b3d4e' }
  const chunks: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }], x_groq: { id: 'req_01kb7x3m9zf4t8q2w6e5r1y0u3' } },
    { ...base, choices: [{ index: 0, delta: { content: 'Paris is ' }, logprobs: null, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'the capital.' }, logprobs: null, finish_reason: null }] },
    {
      ...base,
      choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }],
      x_groq: {
        id: 'req_01kb7x3m9zf4t8q2w6e5r1y0u3',
        usage: { queue_time: 0.051, prompt_tokens: 1834, prompt_time: 0.092, completion_tokens: 57, completion_time: 0.118, total_tokens: 1891, total_time: 0.21 },
        usage_breakdown: { models: [{ model: 'llama-3.3-70b-versatile', usage: { prompt_tokens: 1834, completion_tokens: 57 } }] },
      },
    },
  ]
  if (options.standardUsage)
    chunks.push({ ...base, choices: [], usage: { prompt_tokens: 1900, completion_tokens: 60, total_tokens: 1960 }, x_groq: { id: 'req_01kb7x3m9zf4t8q2w6e5r1y0u3' } })
  return chunks
}

/**
 * Mistral, magistral: reasoning arrives as `thinking` parts of `delta.content`
 * (each holding text parts), the answer as plain strings and then as `text`
 * parts; the last chunk finishes and carries usage.
 */
export function magistralStream(): unknown[] {
  const id = 'c3c77283055240cbbaf6f01d384cfccb'
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    ({ id, object: 'chat.completion.chunk', created: CREATED, model: 'magistral-medium-2509', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })
  const thinking = (text: string) => ({ content: [{ type: 'thinking', thinking: [{ type: 'text', text }] }] })
  return [
    chunk({ role: 'assistant', content: '' }),
    chunk(thinking('The user greets me')),
    chunk(thinking(', so I should')),
    chunk(thinking(' greet back.')),
    chunk({ content: 'Hello' }),
    chunk({ content: [{ type: 'text', text: ', how can ' }] }),
    chunk({ content: [{ type: 'text', text: 'I help?' }] }),
    chunk({ content: '' }, 'stop', { usage: { prompt_tokens: 12, total_tokens: 96, completion_tokens: 84 } }),
  ]
}

/**
 * Snowflake Cortex and gateways like it: no choice ever carries a
 * `finish_reason`; content deltas, then a choice-less usage chunk, then `[DONE]`.
 * With `toolCall`, the answer is a tool call instead of text.
 */
export function noFinishReasonStream(options: { toolCall?: boolean } = {}): unknown[] {
  const id = 'e6a1f0c2-9b8d-4f7e-a3c5-1d2b0e9f8a76'
  const base = { id, object: 'chat.completion.chunk', created: CREATED, model: 'claude-3-5-sonnet' }
  const body = options.toolCall
    ? [
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'tooluse_Qk3vX8', type: 'function', function: { name: 'lookup', arguments: '' } }] } }] },
        { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"word":' } }] } }] },
        { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"alpha"}' } }] } }] },
      ]
    : [
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'The answer' } }] },
        { ...base, choices: [{ index: 0, delta: { content: ' is 42.' } }] },
      ]
  return [...body, { ...base, choices: [], usage: { prompt_tokens: 310, completion_tokens: 9, total_tokens: 319 } }]
}

/**
 * A gateway in front of OpenAI: OpenAI's own extras (`system_fingerprint`,
 * `service_tier`, `obfuscation`), keep-alive chunks with `choices: null`,
 * `delta: null` and empty `choices`, a chunk with a `null` choice, and usage on its own chunk.
 */
export function noisyGatewayStream(): unknown[] {
  const id = 'chatcmpl-CbX9rT2mYq8LzW4nJ7kD1sF0aP6e'
  const base = { id, object: 'chat.completion.chunk', created: CREATED, model: 'gpt-5.2-2026-01-01', service_tier: 'default', system_fingerprint: 'fp_4e2b1c0d9a' }
  return [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }], obfuscation: 'q1Zx' },
    { ...base, choices: null },
    { ...base, choices: [{ index: 0, delta: null, logprobs: null, finish_reason: null }] },
    { ...base, choices: [] },
    { ...base, choices: [null] },
    { ...base, choices: [{ index: 0, delta: { content: 'Hi', annotations: [] }, logprobs: null, finish_reason: null }], obfuscation: 'H8v' },
    { ...base, choices: [{ index: 0, delta: { content: ' there' }, logprobs: null, finish_reason: null }], obfuscation: 'a' },
    { ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], obfuscation: 'Zk2pQ' },
    { ...base, choices: [], usage: { prompt_tokens: 21, completion_tokens: 3, total_tokens: 24, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } }, obfuscation: 'x0' },
  ]
}

/**
 * Mistral's API, one turn: a role chunk, then (for a tool call) a single
 * chunk holding the whole call, its nine-character id and its complete
 * arguments, which also finishes with `tool_calls` and carries usage; or, for
 * text, content deltas and a last chunk that finishes with `stop` and carries
 * usage. Chunk ids are 32 hex digits; Mistral sends no `type` on the call.
 */
export function mistralStream(turn: { callId: string, name: string, args: string } | { text: string[] }): unknown[] {
  const id = 'e5cc70bb28c444948073e77776eb30ef'
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    ({ id, object: 'chat.completion.chunk', created: CREATED, model: 'mistral-large-latest', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra })
  const usage = { prompt_tokens: 91, total_tokens: 119, completion_tokens: 28 }
  if ('callId' in turn)
    return [chunk({ role: 'assistant', content: '' }), chunk({ tool_calls: [{ id: turn.callId, function: { name: turn.name, arguments: turn.args }, index: 0 }] }, 'tool_calls', { usage })]
  const last = turn.text.length - 1
  return [chunk({ role: 'assistant', content: '' }), ...turn.text.map((piece, n) => n < last ? chunk({ content: piece }) : chunk({ content: piece }, 'stop', { usage }))]
}

/**
 * A gateway that keeps usage in its own extension object (`x_gateway.usage`,
 * beside its routing data) on the last chunk and never sends the standard
 * `usage` field, even when asked.
 */
export function gatewayExtensionUsageStream(): unknown[] {
  const id = 'gen-1764000000-Jq7vZr2LmX8pKc4tWb9n'
  const base = { id, object: 'chat.completion.chunk', created: CREATED, model: 'llama-3.3-70b' }
  return [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'Forty-two.' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], x_gateway: { upstream: 'pool-b', usage: { prompt_tokens: 412, completion_tokens: 5, total_tokens: 417 } } },
  ]
}
