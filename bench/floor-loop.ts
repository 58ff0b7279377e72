/**
 * The floor: the tool loop a careful developer writes by hand on top of
 * `@anthropic-ai/sdk`, with no agent SDK. It streams raw events, forwards
 * text deltas to the host, collects each tool block's argument fragments and
 * parses them once when the block stops, runs the calls (concurrently), and
 * loops until the model calls no tool. It persists the conversation as a
 * careful developer would: a log file opened once per run (append mode), the
 * prompt as its first line, then one JSON line per turn with that turn's new
 * messages (the assistant message and the tool results), written before the
 * next request. No hooks, no validation, no crash handling: whatever zidane
 * spends beyond this is its own overhead.
 */

import type Anthropic from '@anthropic-ai/sdk'
import type {
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages'
import type { FileHandle } from 'node:fs/promises'
import type { FloorAnswer, FloorRunTelemetry } from './floor-telemetry'
import { open } from 'node:fs/promises'

export interface FloorLoopOptions {
  client: Anthropic
  model: string
  maxTokens: number
  system: string
  tools: Tool[]
  prompt: string
  maxTurns: number
  /** Runs one tool call; the floor trusts the model's input as is. */
  execute: (name: string, input: Record<string, unknown>) => Promise<string> | string
  /** Receives text deltas as they stream, as a host prints them. */
  onText: (delta: string) => void
  /** The run's conversation log (JSONL), created or appended to; without it the loop keeps nothing (a zidane run without a session). */
  logPath?: string
  /** OpenTelemetry by hand (`floor-telemetry.ts`): a new run's spans and metrics, or none. */
  telemetry?: () => FloorRunTelemetry
}

export interface FloorLoopResult {
  turns: number
  text: string
  inputTokens: number
  outputTokens: number
}

export async function runFloorLoop(options: FloorLoopOptions): Promise<FloorLoopResult> {
  const messages: MessageParam[] = [{ role: 'user', content: options.prompt }]
  const result: FloorLoopResult = { turns: 0, text: '', inputTokens: 0, outputTokens: 0 }
  const log = options.logPath === undefined ? undefined : await open(options.logPath, 'a')
  const telemetry = options.telemetry?.()
  try {
    await log?.write(`${JSON.stringify(messages)}\n`)
    await loop(options, messages, result, log, telemetry)
  }
  finally {
    await log?.close()
  }
  telemetry?.end(result.turns, 'completed')
  return result
}

async function loop(options: FloorLoopOptions, messages: MessageParam[], result: FloorLoopResult, log: FileHandle | undefined, telemetry: FloorRunTelemetry | undefined): Promise<void> {
  const { client, execute } = options
  while (result.turns < options.maxTurns) {
    result.turns += 1
    const chat = telemetry?.chat(result.turns)
    const stream = await client.messages.create({
      model: options.model,
      max_tokens: options.maxTokens,
      system: options.system,
      tools: options.tools,
      messages,
      stream: true,
    })

    const blocks: ContentBlockParam[] = []
    const argumentParts = new Map<number, string[]>()
    const answer: FloorAnswer | undefined = chat && { model: '', id: '', finishReason: '', input: 0, output: 0 }
    for await (const event of stream) {
      chat?.firstChunk()
      switch (event.type) {
        case 'message_start':
          result.inputTokens += event.message.usage.input_tokens
          if (answer) {
            answer.model = event.message.model
            answer.id = event.message.id
            answer.input = event.message.usage.input_tokens
            answer.cacheRead = event.message.usage.cache_read_input_tokens ?? 0
            answer.cacheCreation = event.message.usage.cache_creation_input_tokens ?? 0
          }
          break
        case 'content_block_start':
          if (event.content_block.type === 'text') {
            blocks[event.index] = { type: 'text', text: event.content_block.text }
          }
          else if (event.content_block.type === 'tool_use') {
            const { id, name } = event.content_block
            blocks[event.index] = { type: 'tool_use', id, name, input: {} }
            argumentParts.set(event.index, [])
          }
          break
        case 'content_block_delta':
          if (event.delta.type === 'text_delta') {
            (blocks[event.index] as TextBlockParam).text += event.delta.text
            options.onText(event.delta.text)
          }
          else if (event.delta.type === 'input_json_delta') {
            argumentParts.get(event.index)?.push(event.delta.partial_json)
          }
          break
        case 'content_block_stop': {
          const parts = argumentParts.get(event.index)
          if (parts && parts.length > 0)
            (blocks[event.index] as ToolUseBlockParam).input = JSON.parse(parts.join(''))
          break
        }
        case 'message_delta':
          result.outputTokens += event.usage.output_tokens
          if (answer) {
            answer.output = event.usage.output_tokens
            answer.finishReason = event.delta.stop_reason ?? ''
          }
          break
      }
    }
    if (chat && answer)
      chat.end(answer)

    // Events may skip an index (blocks the loop does not keep); the next request must not carry holes.
    const content = blocks.filter(block => block !== undefined)
    const assistant: MessageParam = { role: 'assistant', content }
    messages.push(assistant)
    const calls = content.filter((block): block is ToolUseBlockParam => block.type === 'tool_use')
    if (calls.length === 0) {
      await log?.write(`${JSON.stringify([assistant])}\n`)
      result.text = content.map(block => block.type === 'text' ? block.text : '').join('')
      return
    }
    const answers = await Promise.all(calls.map(async (call): Promise<ToolResultBlockParam> => {
      const span = telemetry?.tool(call.name, options.tools.find(tool => tool.name === call.name)?.description ?? '', call.id, result.turns)
      try {
        return { type: 'tool_result', tool_use_id: call.id, content: await execute(call.name, call.input as Record<string, unknown>) }
      }
      catch (error) {
        return { type: 'tool_result', tool_use_id: call.id, content: `Error: ${(error as Error).message}`, is_error: true }
      }
      finally {
        span?.end()
      }
    }))
    const results: MessageParam = { role: 'user', content: answers }
    messages.push(results)
    await log?.write(`${JSON.stringify([assistant, results])}\n`)
  }
}
