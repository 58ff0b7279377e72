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
  try {
    await log?.write(`${JSON.stringify(messages)}\n`)
    await loop(options, messages, result, log)
  }
  finally {
    await log?.close()
  }
  return result
}

async function loop(options: FloorLoopOptions, messages: MessageParam[], result: FloorLoopResult, log: FileHandle | undefined): Promise<void> {
  const { client, execute } = options
  while (result.turns < options.maxTurns) {
    result.turns += 1
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
    for await (const event of stream) {
      switch (event.type) {
        case 'message_start':
          result.inputTokens += event.message.usage.input_tokens
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
          break
      }
    }

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
      try {
        return { type: 'tool_result', tool_use_id: call.id, content: await execute(call.name, call.input as Record<string, unknown>) }
      }
      catch (error) {
        return { type: 'tool_result', tool_use_id: call.id, content: `Error: ${(error as Error).message}`, is_error: true }
      }
    }))
    const results: MessageParam = { role: 'user', content: answers }
    messages.push(results)
    await log?.write(`${JSON.stringify([assistant, results])}\n`)
  }
}
