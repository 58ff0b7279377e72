import type { SessionMessage } from '../../core/content'
import type { PairingRepair } from '../../errors'
import type { WireStage } from '../stage'
import type { PairingCheckpoint } from '../well-paired'
import { repairToolPairing } from '../pairing'
import { isWellPaired } from '../well-paired'

/** The view pairing repair sends, and what it had to change. */
export interface PairedView {
  /** The input itself when nothing needed repairing. */
  messages: readonly SessionMessage[]
  /** Empty when nothing needed repairing. */
  repairs: PairingRepair[]
}

/**
 * Pairing repair (see `repairToolPairing`): every tool call on the wire gets
 * exactly one result. A healthy view, the common case, is only checked; with
 * the run's checkpoint only the messages added since the last request are.
 * The input is never edited: a repaired view is a new array.
 */
export function pairWireView(messages: readonly SessionMessage[], checkpoint?: PairingCheckpoint): PairedView {
  if (isWellPaired(messages, checkpoint))
    return { messages, repairs: [] }
  const { messages: repaired, repairs } = repairToolPairing(messages)
  return repairs.length === 0 ? { messages, repairs } : { messages: repaired, repairs }
}

/**
 * Pairing repair as a plain stage, for running the pure part of the pipeline
 * outside a run (tests, tools that replay a transcript). The loop runs
 * `pairWireView` itself instead, because it announces each repair on
 * `pairing:repair` and enforces `strictToolPairing` and
 * `maxPairingRepairsPerTurn` before sending.
 */
export const pairingStage: WireStage = {
  name: 'pairing',
  apply: messages => pairWireView(messages).messages,
}
