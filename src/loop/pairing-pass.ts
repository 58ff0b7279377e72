import type { SessionMessage } from '../core/content'
import type { PairingCheckpoint } from '../wire/well-paired'
import type { RunContext } from './run-context'
import { AgentToolPairingError } from '../errors'
import { callHookBounded, hasHookHandlers } from '../hooks/bus'
import { activeLimit } from '../knobs/behavior'
import { repairToolPairing } from '../wire/pairing'
import { createPairingCheckpoint, isWellPaired } from '../wire/well-paired'
import { hookTimeout, runIds } from './stream-turn'

/** Per run, how far the wire view is known to be well paired, so each turn checks only what it added. */
const checkpoints = new WeakMap<RunContext, PairingCheckpoint>()

/**
 * The pre-send pairing pass: every tool call on the wire gets exactly one
 * result. Repairs change this request only, never the recorded turns; each is
 * announced on `pairing:repair`. With `strictToolPairing` the run fails
 * instead, and `maxPairingRepairsPerTurn` fails a run whose history needs
 * more repairs than any healthy one would (a provider reusing ids, say).
 */
export async function pairForWire(run: RunContext, turnId: string, messages: SessionMessage[]): Promise<SessionMessage[]> {
  let checkpoint = checkpoints.get(run)
  if (!checkpoint)
    checkpoints.set(run, checkpoint = createPairingCheckpoint())
  if (isWellPaired(messages, checkpoint))
    return messages
  const { messages: repaired, repairs } = repairToolPairing(messages)
  if (repairs.length === 0)
    return messages
  if (hasHookHandlers(run.hooks, 'pairing:repair')) {
    for (const repair of repairs)
      await callHookBounded(run.hooks, 'pairing:repair', { ...runIds(run), turnId, repair }, { timeoutMs: hookTimeout(run), failClosed: false })
  }
  if (run.behavior.strictToolPairing)
    throw new AgentToolPairingError(`The conversation needs ${repairs.length} tool pairing repair(s) and strictToolPairing is on`, repairs)
  const max = activeLimit(run.behavior.maxPairingRepairsPerTurn)
  if (max !== undefined && repairs.length > max)
    throw new AgentToolPairingError(`The conversation needs ${repairs.length} tool pairing repairs, more than maxPairingRepairsPerTurn (${max})`, repairs)
  return repaired
}
