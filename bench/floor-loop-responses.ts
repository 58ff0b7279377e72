/**
 * The floor for the OpenAI Responses path: the tool loop a careful developer
 * writes by hand on top of the official `openai` client's `responses.create`,
 * with no agent SDK. Requests are stateless (`store: false`, the whole input
 * sent every turn, encrypted reasoning asked for), as zidane sends them. It
 * streams the events, forwards text deltas to the host, takes each finished
 * function call from `response.output_item.done`, runs the calls
 * (concurrently), appends the assistant's text and calls and one
 * `function_call_output` per call to the input, and loops until the model
 * calls no tool. It persists the conversation like the other floors: one log
 * opened per run, the prompt as its first line, then one JSON line per turn
 * with that turn's new items. No hooks, no validation: whatever zidane spends
 * beyond this is its own overhead.
 */

import type { FileHandle } from 'node:fs/promises'
import type OpenAI from 'openai'
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses'
import type { FloorLoopResult } from './floor-loop'
import type { FloorRunTelemetry } from './floor-telemetry'
import { open } from 'node:fs/promises'

export interface ResponsesFloorLoopOptions {
  client: OpenAI
  model: string
  maxTokens: number
  system: string
  tools: FunctionTool[]
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

/** A function call as the stream finishes it. */
interface FinishedCall {
  call_id: string
  name: string
  arguments: string
}

export async function runResponsesFloorLoop(options: ResponsesFloorLoopOptions): Promise<FloorLoopResult> {
  const input: ResponseInputItem[] = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: options.prompt }] }]
  const result: FloorLoopResult = { turns: 0, text: '', inputTokens: 0, outputTokens: 0 }
  const log = options.logPath === undefined ? undefined : await open(options.logPath, 'a')
  const telemetry = options.telemetry?.()
  try {
    await log?.write(`${JSON.stringify(input)}\n`)
    await loop(options, input, result, log, telemetry)
  }
  finally {
    await log?.close()
  }
  telemetry?.end(result.turns, 'completed')
  return result
}

async function loop(options: ResponsesFloorLoopOptions, input: ResponseInputItem[], result: FloorLoopResult, log: FileHandle | undefined, telemetry: FloorRunTelemetry | undefined): Promise<void> {
  const { client, execute } = options
  while (result.turns < options.maxTurns) {
    result.turns += 1
    const chat = telemetry?.chat(result.turns)
    const stream = await client.responses.create({
      model: options.model,
      instructions: options.system,
      input,
      tools: options.tools,
      include: ['reasoning.encrypted_content'],
      store: false,
      max_output_tokens: options.maxTokens,
      stream: true,
    })

    let text = ''
    const calls: FinishedCall[] = []
    for await (const event of stream) {
      chat?.firstChunk()
      if (event.type === 'response.output_text.delta') {
        text += event.delta
        options.onText(event.delta)
      }
      else if (event.type === 'response.output_item.done' && event.item.type === 'function_call') {
        calls.push({ call_id: event.item.call_id, name: event.item.name, arguments: event.item.arguments })
      }
      else if (event.type === 'response.completed' && event.response.usage) {
        result.inputTokens += event.response.usage.input_tokens
        result.outputTokens += event.response.usage.output_tokens
        const usage = event.response.usage
        chat?.end({ model: event.response.model, id: event.response.id, finishReason: calls.length > 0 ? 'tool_calls' : 'stop', input: usage.input_tokens, output: usage.output_tokens, cacheRead: usage.input_tokens_details?.cached_tokens ?? 0, reasoning: usage.output_tokens_details?.reasoning_tokens ?? 0 })
      }
    }

    const said: ResponseInputItem[] = text === ''
      ? []
      : [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] } as ResponseInputItem]
    const asked: ResponseInputItem[] = calls.map(call => ({ type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments }))
    input.push(...said, ...asked)
    if (calls.length === 0) {
      await log?.write(`${JSON.stringify(said)}\n`)
      result.text = text
      return
    }
    const answers = await Promise.all(calls.map(async (call): Promise<ResponseInputItem> => {
      const span = telemetry?.tool(call.name, options.tools.find(tool => tool.name === call.name)?.description ?? '', call.call_id, result.turns)
      try {
        const args = JSON.parse(call.arguments || '{}') as Record<string, unknown>
        return { type: 'function_call_output', call_id: call.call_id, output: await execute(call.name, args) }
      }
      catch (error) {
        return { type: 'function_call_output', call_id: call.call_id, output: `Error: ${(error as Error).message}` }
      }
      finally {
        span?.end()
      }
    }))
    input.push(...answers)
    await log?.write(`${JSON.stringify([...said, ...asked, ...answers])}\n`)
  }
}
