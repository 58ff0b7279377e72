import type { SessionContentBlock, SessionMessage, ToolResultContent } from '../../src/core/content'
import { describe, expect, it } from 'vitest'
import { ClassifiedError } from '../../src/errors'
import { buildChatRequest, wireToolCallId } from '../../src/providers/openai-chat'
import { assistant, chatOptions, dialect, PNG, READ_TOOL, SHELL_TOOL, text, user } from './openai-chat-fixtures'

function build(messages = chatOptions().messages, overrides: Parameters<typeof chatOptions>[0] = {}, dialectOverrides: Parameters<typeof dialect>[0] = {}) {
  return buildChatRequest(chatOptions({ messages, ...overrides }), dialect(dialectOverrides))
}

function call(id: string, name = 'read_file', input: Record<string, unknown> = { path: 'a.txt' }): SessionContentBlock {
  return { type: 'tool_call', id, name, input }
}

function result(callId: string, output: string | ToolResultContent[], isError?: boolean): SessionContentBlock {
  return { type: 'tool_result', callId, output, ...(isError ? { isError } : {}) }
}

function refusal(fn: () => unknown): ClassifiedError {
  try {
    fn()
  }
  catch (error) {
    expect(error).toBeInstanceOf(ClassifiedError)
    return error as ClassifiedError
  }
  throw new Error('expected the build to throw')
}

describe('the request body', () => {
  it('puts the system prompt first, then the conversation, with tools as functions and streaming usage on', () => {
    const body = build([user(text('Hi'))], { tools: [READ_TOOL, SHELL_TOOL] })
    expect(body).toEqual({
      model: 'gpt-5.2',
      messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hi' }],
      tools: [
        { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: READ_TOOL.inputSchema } },
        { type: 'function', function: { name: 'shell', description: 'Run a command', parameters: SHELL_TOOL.inputSchema } },
      ],
      stream: true,
      stream_options: { include_usage: true },
    })
  })

  it('leaves out an empty system prompt, an empty tool list and an unset output cap', () => {
    const body = build([user(text('Hi'))], { system: '' })
    expect(body.messages).toEqual([{ role: 'user', content: 'Hi' }])
    expect(body).not.toHaveProperty('tools')
    expect(body).not.toHaveProperty('max_completion_tokens')
    expect(body).not.toHaveProperty('max_tokens')
  })

  it('sends maxTokens in the dialect\'s field', () => {
    expect(build(undefined, { maxTokens: 900 }).max_completion_tokens).toBe(900)
    const compat = build(undefined, { maxTokens: 900 }, { maxTokensField: 'max_tokens' })
    expect(compat.max_tokens).toBe(900)
    expect(compat).not.toHaveProperty('max_completion_tokens')
  })

  it('copies listed modelOptions verbatim, in the list\'s order, and ignores every other key', () => {
    const body = build(undefined, { modelOptions: { seed: 7, temperature: 0.2, fast: true, model: 'other', stream: false, messages: [] } })
    expect(body.temperature).toBe(0.2)
    expect(body.seed).toBe(7)
    expect(body).not.toHaveProperty('fast')
    expect(body.model).toBe('gpt-5.2')
    expect(body.stream).toBe(true)
    expect(Object.keys(body).indexOf('temperature')).toBeLessThan(Object.keys(body).indexOf('seed'))
  })
})

describe('messages', () => {
  it('sends assistant text and tool calls, and each result as a tool message in call order, a failed one marked', () => {
    const body = build([
      user(text('Read both')),
      assistant(text('Reading.'), call('call_a', 'read_file', { path: 'a' }), call('call_b', 'read_file', { path: 'b' })),
      // Results stored out of order still go out in the order of the calls.
      user(result('call_b', 'B'), result('call_a', 'A', true), text('and then?')),
    ])
    expect(body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Read both' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
          { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '[tool error] A' },
      { role: 'tool', tool_call_id: 'call_b', content: 'B' },
      { role: 'user', content: 'and then?' },
    ])
  })

  it('gives an assistant message with only tool calls null content', () => {
    const body = build([user(text('go')), assistant(call('call_1')), user(result('call_1', 'ok'))])
    expect(body.messages[2]).toMatchObject({ role: 'assistant', content: null })
  })

  it('joins text-only tool output parts into the tool message', () => {
    const body = build([user(text('go')), assistant(call('call_1')), user(result('call_1', [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }]))])
    expect(body.messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'one\ntwo' })
  })

  it('never sends thinking: not Anthropic-signed, not unsigned, not redacted', () => {
    const body = build([
      user(text('q')),
      assistant(
        { type: 'thinking', text: 'secret plan', signature: 'sig', signatureProducer: 'anthropic' },
        { type: 'thinking', text: 'loose thought' },
        { type: 'redacted_thinking', data: 'blob' },
        text('answer'),
      ),
      user(text('more')),
    ])
    expect(body.messages[2]).toEqual({ role: 'assistant', content: 'answer' })
    expect(JSON.stringify(body)).not.toMatch(/secret plan|loose thought|blob|sig/)
  })

  it('drops an assistant message that held nothing but reasoning', () => {
    const body = build([user(text('q')), assistant({ type: 'thinking', text: 'hm' }), user(text('again'))])
    expect(body.messages.map(message => message.role)).toEqual(['system', 'user', 'user'])
  })

  it('replays this model\'s reasoning only where the dialect says the API takes it back', () => {
    const messages = [
      user(text('q')),
      assistant({ type: 'provider_reasoning', producer: 'vllm', reasoningText: 'mine', model: 'gpt-5.2' }, { type: 'provider_reasoning', producer: 'vllm', reasoningText: 'theirs', model: 'other-model' }, call('call_1')),
      user(result('call_1', 'ok')),
    ]
    expect(build(messages).messages[2]).not.toHaveProperty('reasoning_content')
    const replayed = build(messages, {}, { replayReasoningField: 'reasoning_content' }).messages[2]
    expect(replayed).toMatchObject({ reasoning_content: 'mine' })
    expect(JSON.stringify(replayed)).not.toContain('theirs')
  })

  it('replays OpenRouter reasoning details only with the dialect switch, and only to the model that made them', () => {
    const details = [{ type: 'reasoning.text', text: 'r', signature: 's', index: 0 }]
    const messages = [user(text('q')), assistant({ type: 'provider_reasoning', producer: 'openrouter', details, model: 'gpt-5.2' }, text('a')), user(text('b'))]
    expect(build(messages).messages[2]).not.toHaveProperty('reasoning_details')
    expect(build(messages, {}, { replayReasoningDetails: true }).messages[2]).toMatchObject({ reasoning_details: details })
    expect(build(messages, { model: 'another' }, { replayReasoningDetails: true }).messages[2]).not.toHaveProperty('reasoning_details')
  })
})

describe('tool-call ids', () => {
  it('keeps ids every API accepts, other providers\' included', () => {
    for (const id of ['call_abc', 'toolu_01A09q90qw90lq917835lq9', 'x', 'a'.repeat(40)])
      expect(wireToolCallId(id)).toBe(id)
  })

  it('rewrites empty, over-long and odd-character ids to short, valid, stable and distinct ones', () => {
    const odd = ['', 'a'.repeat(41), 'call_1|fc_2', 'id with spaces', 'fc_é', 'call.odd:id/1']
    const rewritten = odd.map(id => wireToolCallId(id))
    for (const id of rewritten)
      expect(id).toMatch(/^[\w-]{1,15}_[0-9a-f]{24}$/)
    expect(new Set(rewritten).size).toBe(odd.length)
    expect(odd.map(id => wireToolCallId(id))).toEqual(rewritten)
    // The readable start of the id survives.
    expect(wireToolCallId('call.odd:id/1')).toMatch(/^call_odd_id_1_[0-9a-f]{24}$/)
    expect(wireToolCallId('')).toMatch(/^call_[0-9a-f]{24}$/)
  })

  it('rewrites to nine letters and digits for Mistral, keeping ids already in that form', () => {
    expect(wireToolCallId('aB3xK9mP2', 'mistral')).toBe('aB3xK9mP2')
    const ids = ['call_abc', 'toolu_01A09q90qw90lq917835lq9', 'call.odd:id/1', '']
    const rewritten = ids.map(id => wireToolCallId(id, 'mistral'))
    for (const id of rewritten)
      expect(id).toMatch(/^[A-Z0-9]{9}$/i)
    expect(new Set(rewritten).size).toBe(ids.length)
    const body = build([user(text('go')), assistant(call('call.odd:id/1')), user(result('call.odd:id/1', 'ok'))], {}, { toolCallIds: 'mistral' })
    expect((body.messages[2] as { tool_calls: Array<{ id: string }> }).tool_calls[0].id).toBe(wireToolCallId('call.odd:id/1', 'mistral'))
    expect((body.messages[3] as { tool_call_id: string }).tool_call_id).toBe(wireToolCallId('call.odd:id/1', 'mistral'))
  })

  it('rewrites a call and its result to the same id', () => {
    const long = `resp_${'z'.repeat(60)}`
    const body = build([user(text('go')), assistant(call(long)), user(result(long, 'ok'))])
    const assistantMessage = body.messages[2] as { tool_calls: Array<{ id: string }> }
    const toolMessage = body.messages[3] as { tool_call_id: string }
    expect(assistantMessage.tool_calls[0].id).toBe(wireToolCallId(long))
    expect(toolMessage.tool_call_id).toBe(assistantMessage.tool_calls[0].id)
    expect(toolMessage.tool_call_id).not.toBe(long)
  })
})

describe('user content', () => {
  it('sends images as data URLs next to the text', () => {
    const body = build([user(text('What is this?'), { type: 'image', data: PNG, mediaType: 'image/png' })])
    expect(body.messages[1]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }],
    })
  })

  it('inlines text documents under a header naming them, decoding base64 text types', () => {
    const body = build([user(
      { type: 'document', data: 'hello', encoding: 'text', mediaType: 'text/markdown', name: 'notes.md' },
      { type: 'document', data: Buffer.from('{"a":1}').toString('base64'), encoding: 'base64', mediaType: 'application/json', name: 'a.json' },
    )])
    expect(body.messages[1].content).toBe(
      '<attached-document name="notes.md" media-type="text/markdown">\nhello\n</attached-document>\n\n'
      + '<attached-document name="a.json" media-type="application/json">\n{"a":1}\n</attached-document>',
    )
  })

  it('sends PDFs as file parts where the API takes them, and refuses them before sending elsewhere', () => {
    const pdf: SessionContentBlock = { type: 'document', data: 'JVBERi0=', encoding: 'base64', mediaType: 'application/pdf', name: 'spec.pdf' }
    expect(build([user(pdf)]).messages[1].content).toEqual([{ type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } }])
    expect(refusal(() => build([user(pdf)], {}, { pdfFiles: false }))).toMatchObject({ kind: 'unsupported', retryable: false, provider: 'openai' })
  })

  it.each<[string, SessionContentBlock]>([
    ['audio', { type: 'audio', data: 'AAAA', mediaType: 'audio/wav' }],
    ['video', { type: 'video', data: 'AAAA', mediaType: 'video/mp4' }],
    ['an unresolved image reference', { type: 'image', ref: 'img-1', mediaType: 'image/png' }],
    ['a TIFF image', { type: 'image', data: 'AAAA', mediaType: 'image/tiff' }],
    ['a binary document', { type: 'document', data: 'AAAA', encoding: 'base64', mediaType: 'application/zip' }],
  ])('refuses %s with an unsupported error', (_, block) => {
    expect(refusal(() => build([user(block)])).kind).toBe('unsupported')
  })

  it('refuses prompt images for a dialect without images', () => {
    expect(refusal(() => build([user({ type: 'image', data: PNG, mediaType: 'image/png' })], {}, { images: false })).kind).toBe('unsupported')
  })
})

describe('images in tool results', () => {
  const screenshot = [{ type: 'text' as const, text: 'Screenshot taken.' }, { type: 'image' as const, data: PNG, mediaType: 'image/png' }]
  const conversation = [user(text('shoot')), assistant(call('call_1', 'screenshot', {})), user(result('call_1', screenshot), text('What do you see?'))]

  it('companion mode: the tool message says where the image is, and the next user message carries it', () => {
    const body = build(conversation)
    expect(body.messages.slice(3)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'Screenshot taken.\n[1 attachment follows in the next user message]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Attachments of the tool result call_1:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'text', text: 'What do you see?' },
        ],
      },
    ])
  })

  it('inline mode: the image stays in the tool message and no companion message is added', () => {
    const body = build(conversation, {}, { toolResultImages: 'inline' })
    expect(body.messages.slice(3)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'Screenshot taken.' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] },
      { role: 'user', content: 'What do you see?' },
    ])
  })

  it('a dialect without images gets a note instead, and no companion message', () => {
    const body = build(conversation.slice(0, 3), {}, { images: false })
    expect(body.messages.slice(3)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'Screenshot taken.\n[image omitted: this model does not take images]' },
      { role: 'user', content: 'What do you see?' },
    ])
  })

  it('notes content the API cannot carry instead of failing the request', () => {
    const body = build([user(text('go')), assistant(call('call_1')), user(result('call_1', [
      { type: 'audio', data: 'AAAA', mediaType: 'audio/wav' },
      { type: 'image', ref: 'shot-2', mediaType: 'image/png' },
      { type: 'document', data: 'AAAA', encoding: 'base64', mediaType: 'application/zip', name: 'x.zip' },
    ]))])
    expect(body.messages[3]).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: '[audio omitted: audio/wav is not supported here]\n[image omitted: shot-2 was not resolved]\n[document omitted: application/zip is not supported here]',
    })
  })

  it('the companion message names the rewritten id the model knows', () => {
    const id = 'x'.repeat(50)
    const body = build([user(text('go')), assistant(call(id)), user(result(id, screenshot))])
    expect(JSON.stringify(body.messages[4])).toContain(wireToolCallId(id))
  })
})

describe('messages converted on an earlier turn', () => {
  const openai = dialect()
  const send = (messages: SessionMessage[], overrides: Parameters<typeof chatOptions>[0] = {}) =>
    JSON.stringify(buildChatRequest(chatOptions({ messages, ...overrides }), openai))
  /** The same conversation in new objects throughout, so nothing of it was converted before. */
  const copy = (messages: SessionMessage[]) => structuredClone(messages)

  it('give the same bytes as a fresh conversion, turn after turn', () => {
    const messages: SessionMessage[] = [user(text('go'))]
    for (let turn = 1; turn <= 4; turn++) {
      messages.push(assistant(text(`turn ${turn}`), call(`call_${turn}a`), call(`call_${turn}b`)))
      messages.push(user(result(`call_${turn}b`, 'b'), result(`call_${turn}a`, 'a')))
      expect(send(messages)).toBe(send(copy(messages)))
    }
  })

  it('are converted again when their content array was changed in place', () => {
    const messages = [user(text('go')), assistant(text('first'))]
    send(messages)
    messages[1].content.push(text('second'))
    expect(send(messages)).toBe(send(copy(messages)))
    messages[1].content[0] = text('replaced')
    expect(send(messages)).toContain('replaced')
  })

  it('follow the calls of the assistant message now before them', () => {
    const results = user(result('call_a', 'a'), result('call_b', 'b'))
    const ids = (body: string) => JSON.parse(body).messages.filter((message: { role: string }) => message.role === 'tool').map((message: { tool_call_id: string }) => message.tool_call_id)
    expect(ids(send([user(text('go')), assistant(call('call_a'), call('call_b')), results]))).toEqual(['call_a', 'call_b'])
    expect(ids(send([user(text('go')), assistant(call('call_b'), call('call_a')), results]))).toEqual(['call_b', 'call_a'])
  })

  it('are converted again for another model or dialect', () => {
    const messages = [user(text('q')), assistant({ type: 'provider_reasoning', producer: 'vllm', reasoningText: 'mine', model: 'gpt-5.2' }, text('a')), user(text('b'))]
    const replaying = dialect({ replayReasoningField: 'reasoning_content' })
    expect(JSON.stringify(buildChatRequest(chatOptions({ messages }), replaying))).toContain('mine')
    expect(JSON.stringify(buildChatRequest(chatOptions({ messages, model: 'another' }), replaying))).not.toContain('mine')
    expect(send(messages)).not.toContain('mine')
  })
})
