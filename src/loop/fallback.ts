import type { RunContext } from './run-context'
import type { StreamCallOptions, StreamedTurn, TurnRequest } from './stream-turn'
import { mergeObjects } from '../core/merge-objects'
import { AgentContextExceededError, AgentProviderError } from '../errors'
import { callHookBounded } from '../hooks/bus'
import { requestForTarget } from './model-metadata'
import { endedAfterOutput, hookTimeout, runIds, streamTurn } from './stream-turn'

/**
 * Stream a turn on the run's current target; when it fails for good (retries
 * spent, or not retryable), move to the next target and try again. The move
 * is run-sticky: later turns of this run stay on the new target, and so does
 * a continuation of it (after a pause or a crash, or with `resumeRunId`: the
 * target is on the run state); a new run starts from the first one again. With no target left, the last error
 * is thrown, and so is an error that ended a turn after its text, a tool
 * call or a server-side tool had streamed: replaying that turn elsewhere
 * would show the caller the same output twice. A side call (`options`)
 * follows the same rules, and its move is as sticky as a turn's.
 */
export async function streamWithFallback(run: RunContext, turnId: string, request: TurnRequest, options: StreamCallOptions = {}): Promise<StreamedTurn | undefined> {
  while (true) {
    try {
      return await streamTurn(run, turnId, requestForTarget(run, request), options)
    }
    catch (error) {
      const next = run.targets[run.targetIndex + 1]
      if (!next || run.signal.aborted || endedAfterOutput(error) || !(error instanceof AgentProviderError || error instanceof AgentContextExceededError))
        throw error
      const from = { provider: run.provider.name, model: run.model }
      // Moves `provider` and `model` with it, on the run state: a continuation of this run keeps the new target.
      run.targetIndex += 1
      await callHookBounded(run.hooks, 'model:fallback', mergeObjects(runIds(run), { turnId, from, to: { provider: next.provider.name, model: next.model }, error }), { timeoutMs: hookTimeout(run), failClosed: false })
    }
  }
}
