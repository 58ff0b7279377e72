import type { ToolResultMetadata } from '../core/content'
import type { McpToolAfterContext, McpToolTransformContext, ToolHookContext, ToolTransformContext } from '../hooks/hook-map'
import type { ToolDef, ToolOutput } from '../tools/types'
import type { Answer } from './call-answer'
import type { RunContext } from './run-context'
import { mergeObjects } from '../core/merge-objects'
import { debugLog } from '../debug'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { extendContext } from '../hooks/context'
import { toolOutputByteLength } from '../session/tool-output'
import { abortedMessage, errorMessage } from './call-answer'
import { gatedCall } from './call-resolve'
import { mcpToolHookContext, toolAfterContext } from './hook-contexts'
import { observeResult, PhaseInterruptedError } from './policy-runner'
import { storableMetadata } from './storable-metadata'
import { hookTimeout } from './stream-turn'
import { checkToolOutput } from './tool-output-check'

type McpOrigin = NonNullable<ToolDef['mcp']>

/** A call's final result: what the model reads (or, for a nested call, what the calling tool gets). */
export interface FinishedAnswer {
  output: ToolOutput
  isError: boolean
  metadata?: ToolResultMetadata
}

/**
 * Let `tool:transform` rewrite the result, then `mcp:tool:transform` for MCP
 * tools, then the policies' result phase; then report the final result on
 * `tool:after` and `mcp:tool:after`.
 */
export async function finishAnswer(run: RunContext, base: ToolHookContext, answer: Answer, mcp: McpOrigin | undefined): Promise<FinishedAnswer> {
  let { output, isError } = answer
  // One object both transform hooks write into; kept only when they wrote something.
  let metadata: ToolResultMetadata = answer.metadata ? { ...answer.metadata } : {}
  if (hasHookHandlers(run.hooks, 'tool:transform')) {
    const transformed = await transformOutput(run, 'tool:transform', extendContext(base, { result: output, isError, outputBytes: toolOutputByteLength(output), metadata }))
    if (!transformed.ok)
      return { output: transformed.message, isError: true }
    output = transformed.output
    isError ||= transformed.isError
    metadata = transformed.metadata
  }
  if (mcp && hasHookHandlers(run.hooks, 'mcp:tool:transform')) {
    const transformed = await transformOutput(run, 'mcp:tool:transform', mergeObjects(mcpToolHookContext(base, mcp), { result: output, isError, outputBytes: toolOutputByteLength(output), metadata }))
    if (!transformed.ok)
      return { output: transformed.message, isError: true }
    output = transformed.output
    isError ||= transformed.isError
    metadata = transformed.metadata
  }
  // What the session will store, checked once the transforms are done: metadata
  // `JSON.stringify` cannot write, or that would nest the turn past what a load
  // reads back, is replaced by a note (`DROPPED_METADATA_KEY`) instead of
  // failing the write of the whole turn. Every result gets the same check (a
  // nested call's goes to the calling tool, which may hand it on). `tool:after`
  // and `mcp:tool:after` see the replaced value, not the original: they report
  // the result as it is recorded, and an observer that serializes what it is
  // shown (a log, a trace exporter) must not meet the cycle or the depth the
  // session was spared. The hook that attached the value has seen it already.
  const attached = storableMetadata(metadata)
  if (run.policyPhases.result.length > 0) {
    try {
      ({ output, isError } = await observeResult(run, base.turnId, gatedCall(base), { output, isError, outcome: answer.outcome, answer: answer.answer }, result => checkToolOutput(result, base.displayName)))
    }
    catch (error) {
      // Cut by an abort or the wall: a call that ran keeps its real result as
      // the transforms left it (nothing it did is lost; the phases' changes
      // are not made); one that never ran says so, as it would have.
      if (error instanceof PhaseInterruptedError) {
        return answer.answer.kind === 'ran'
          ? { output, isError, metadata: attached }
          : { output: abortedMessage(run, false), isError: true, metadata: attached }
      }
      return { output: `Error: a policy's result phase failed (${errorMessage(error)})`, isError: true, metadata: attached }
    }
  }
  const reportAfter = hasHookHandlers(run.hooks, 'tool:after')
  const reportMcpAfter = mcp !== undefined && hasHookHandlers(run.hooks, 'mcp:tool:after')
  if (!reportAfter && !reportMcpAfter)
    return { output, isError, metadata: attached }
  const outputBytes = toolOutputByteLength(output)
  if (reportAfter) {
    const after = toolAfterContext(base, { result: output, isError, outcome: answer.outcome, outputBytes, durationMs: answer.durationMs, metadata: attached })
    await callHookBounded(run.hooks, 'tool:after', after, { timeoutMs: hookTimeout(run), failClosed: false })
      .catch(error => debugLog('tool:after hook failed', error))
  }
  if (reportMcpAfter) {
    const after: McpToolAfterContext = mergeObjects(mcpToolHookContext(base, mcp!), { result: output, isError, outputBytes, durationMs: answer.durationMs }, (attached ? { metadata: attached } : {}))
    await callHookBounded(run.hooks, 'mcp:tool:after', after, { timeoutMs: hookTimeout(run), failClosed: false })
      .catch(error => debugLog('mcp:tool:after hook failed', error))
  }
  return { output, isError, metadata: attached }
}

/** Run one transforming hook and take the result it leaves; a failing hook fails closed with a message for the model. */
async function transformOutput(
  run: RunContext,
  name: 'tool:transform' | 'mcp:tool:transform',
  ctx: ToolTransformContext | McpToolTransformContext,
): Promise<{ ok: true, output: ToolOutput, isError: boolean, metadata: ToolResultMetadata } | { ok: false, message: string }> {
  try {
    await callHookBounded(run.hooks, name, ctx as never, { timeoutMs: hookTimeout(run), failClosed: true })
    const checked = checkToolOutput(ctx.result, ctx.displayName)
    // A hook may have replaced the object; anything but a plain object is dropped rather than recorded.
    const metadata = typeof ctx.metadata === 'object' && ctx.metadata !== null && !Array.isArray(ctx.metadata) ? ctx.metadata : {}
    return { ok: true, output: checked.output, isError: checked.isError === true, metadata }
  }
  catch (error) {
    return { ok: false, message: `Error: a ${name} hook failed (${errorMessage(error)})` }
  }
}
