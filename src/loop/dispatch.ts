import type { ToolResultBlock } from '../core/content'
import type { ToolCall } from '../providers/types'
import type { RunContext } from './run-context'
import { BEHAVIOR_DEFAULTS } from '../knobs/behavior'
import { answerCall, gateCalls } from './call-pipeline'
import { prepareCall } from './call-resolve'
import { runToolCallsJournaled } from './journaled-scheduler'
import { NestedCallLog } from './nested-call-log'
import { runToolCallsInOrder } from './scheduler'

/**
 * Answer every tool call of one assistant turn, in call order. Each call gets
 * exactly one result, whatever happens: unknown tools, invalid arguments,
 * refusals, tools that throw and aborted runs all become error results the
 * model can read. The batch gate sees the whole turn before any call runs;
 * then each call goes through the call pipeline (`./call-pipeline.ts`), the
 * concurrency-safe ones side by side. Tool hooks see canonical names; the
 * model's own name for a tool is `displayName`.
 */
export async function dispatchToolCalls(run: RunContext, turnId: string, calls: readonly ToolCall[]): Promise<ToolResultBlock[]> {
  const prepared = calls.map(call => prepareCall(run, { turnId }, call, new NestedCallLog()))
  await gateCalls(run, turnId, prepared)
  const maxConcurrent = run.behavior.maxConcurrentTools ?? BEHAVIOR_DEFAULTS.maxConcurrentTools
  // A replay must schedule exactly as the first execution did: in call order, never in finishing order.
  const schedule = run.durableMode === 'replay' ? runToolCallsJournaled : runToolCallsInOrder
  return schedule(
    prepared.length,
    index => prepared[index].safe,
    async index => (await answerCall(run, prepared[index])).result,
    maxConcurrent,
  )
}
