import type { StopReason } from '../core/stop-reason'
import type { PhaseResult, PolicyState } from '../policies/policy'
import type { RunContext } from './run-context'
import { debugLog } from '../debug'

/**
 * The run-end phase (`BehaviorPolicy.runEnd`): each enabled policy, in order,
 * fires its closing events, each awaited and bounded by `hookTimeoutMs`
 * (`run.emit`). It runs after the run's record is written, also when the run
 * was aborted or failed, so it neither waits on the run's signal nor lets a
 * policy's failure change how the run ended: a phase that throws is logged.
 * A paused or suspended run is not over (its continuation restores the
 * policies' states), so the phase is skipped then.
 */
export async function endPolicies(run: RunContext, stopReason: StopReason | undefined, error?: unknown): Promise<void> {
  if (stopReason === 'paused' || stopReason === 'suspended')
    return
  for (const policy of run.policyPhases.runEnd) {
    try {
      const state = run.state.policies[policy.name]
      const result = await policy.runEnd!({ run, behavior: run.behavior, state, ...(stopReason === undefined ? {} : { stopReason }), ...(error === undefined ? {} : { error }) }) as PhaseResult<never, PolicyState> | undefined
      if (result?.state !== undefined)
        run.state.policies[policy.name] = result.state
      for (const event of result?.events ?? [])
        await run.emit(event.hook, event.context as never)
    }
    catch (failure) {
      debugLog(`run-end phase of policy "${policy.name}" failed`, failure)
    }
  }
}
