/**
 * The floor for the OpenAI Chat Completions path: the tool loop a careful
 * developer writes by hand on top of the official `openai` client, with no
 * agent SDK. It streams the chunks (usage included), forwards text deltas to
 * the host, collects each tool call's argument fragments by index and parses
 * them once the stream ends, runs the calls (concurrently), appends the
 * assistant message and one `tool` message per call, and loops until the
 * model calls no tool. It persists the conversation like the Anthropic floor
 * (`floor-loop.ts`): one log opened per run, the opening messages as its first
 * line, then one JSON line per turn with that turn's new messages. No hooks,
 * no validation: whatever zidane spends beyond this is its own overhead.
 */

import type { FileHandle } from 'node:fs/promises'
import type OpenAI from 'openai'
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions'
import type { FloorLoopResult } from './floor-loop'
import type { FloorAnswer, FloorRunTelemetry } from './floor-telemetry'
import { open } from 'node:fs/promises'

export interface OpenAIFloorLoopOptions {
  client: OpenAI
  model: string
  maxTokens: number
  system: string
  tools: ChatCompletionFunctionTool[]
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

/** One streamed tool call: `id` and `name` arrive on its first chunk, the arguments in fragments. */
interface PendingCall {
  id: string
  name: string
  argumentParts: string[]
}

export async function runOpenAIFloorLoop(options: OpenAIFloorLoopOptions): Promise<FloorLoopResult> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: options.system },
    { role: 'user', content: options.prompt },
  ]
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

async function loop(options: OpenAIFloorLoopOptions, messages: ChatCompletionMessageParam[], result: FloorLoopResult, log: FileHandle | undefined, telemetry: FloorRunTelemetry | undefined): Promise<void> {
  const { client, execute } = options
  while (result.turns < options.maxTurns) {
    result.turns += 1
    const chat = telemetry?.chat(result.turns)
    const stream = await client.chat.completions.create({
      model: options.model,
      max_completion_tokens: options.maxTokens,
      tools: options.tools,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    })

    let text = ''
    const pending: PendingCall[] = []
    const answer: FloorAnswer | undefined = chat && { model: '', id: '', finishReason: '', input: 0, output: 0 }
    for await (const chunk of stream) {
      if (chunk.usage) {
        result.inputTokens += chunk.usage.prompt_tokens
        result.outputTokens += chunk.usage.completion_tokens
      }
      if (chat && answer) {
        chat.firstChunk()
        answer.model = chunk.model
        answer.id = chunk.id
        if (chunk.usage) {
          answer.input = chunk.usage.prompt_tokens
          answer.output = chunk.usage.completion_tokens
          answer.cacheRead = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0
          answer.cacheCreation = 0
          answer.reasoning = chunk.usage.completion_tokens_details?.reasoning_tokens
        }
        const finish = chunk.choices[0]?.finish_reason
        if (finish)
          answer.finishReason = finish
      }
      const delta = chunk.choices[0]?.delta
      if (!delta)
        continue
      if (delta.content) {
        text += delta.content
        options.onText(delta.content)
      }
      if (delta.tool_calls) {
        for (const part of delta.tool_calls) {
          let call = pending[part.index]
          if (!call) {
            call = { id: part.id ?? '', name: part.function?.name ?? '', argumentParts: [] }
            pending[part.index] = call
          }
          if (part.function?.arguments)
            call.argumentParts.push(part.function.arguments)
        }
      }
    }

    if (chat && answer)
      chat.end(answer)
    // Indices may skip (a server numbering calls oddly); the next request must not carry holes.
    const calls = pending.filter(call => call !== undefined)
    if (calls.length === 0) {
      const assistant: ChatCompletionMessageParam = { role: 'assistant', content: text }
      messages.push(assistant)
      await log?.write(`${JSON.stringify([assistant])}\n`)
      result.text = text
      return
    }
    const toolCalls: ChatCompletionMessageFunctionToolCall[] = calls.map(call => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.argumentParts.join('') },
    }))
    const assistant: ChatCompletionMessageParam = { role: 'assistant', content: text || null, tool_calls: toolCalls }
    messages.push(assistant)
    const answers = await Promise.all(toolCalls.map(async (call): Promise<ChatCompletionToolMessageParam> => {
      const span = telemetry?.tool(call.function.name, options.tools.find(tool => tool.function.name === call.function.name)?.function.description ?? '', call.id, result.turns)
      try {
        const input = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>
        return { role: 'tool', tool_call_id: call.id, content: await execute(call.function.name, input) }
      }
      catch (error) {
        return { role: 'tool', tool_call_id: call.id, content: `Error: ${(error as Error).message}` }
      }
      finally {
        span?.end()
      }
    }))
    messages.push(...answers)
    await log?.write(`${JSON.stringify([assistant, ...answers])}\n`)
  }
}
