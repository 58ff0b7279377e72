/** Session knobs: when turns are written, and how broken tool-call pairing on the wire is handled. */

import { defineKnobs, isBoolean, isLimit } from './define'

/** Persistence and pairing repair of a session-backed run. */
export interface SessionKnobs {
  /**
   * Append each finished turn to the session store as the run goes (default
   * true): a tool call is stored together with its result, so a crash loses at
   * most the turn in flight. `false` writes once when the run ends, on every
   * exit path; the prompt turn is stored up front either way.
   */
  persistTurns?: boolean
  /** Throw `AgentToolPairingError` instead of repairing broken tool-call pairing on the wire. */
  strictToolPairing?: boolean
  /** Most pairing repairs one request may need before the run fails with `AgentToolPairingError`. Default off. */
  maxPairingRepairsPerTurn?: number
}

/** Defaults of the session slice. */
export const SESSION_DEFAULTS = Object.freeze({
  persistTurns: true,
  strictToolPairing: false,
} satisfies SessionKnobs)

/** The session slice. */
export const SESSION_KNOBS = defineKnobs<SessionKnobs, typeof SESSION_DEFAULTS>('sessions', SESSION_DEFAULTS, {
  persistTurns: { doc: 'Append each finished turn to the session store as the run goes; `false` writes once at the end.', check: isBoolean },
  strictToolPairing: { doc: 'Throw `AgentToolPairingError` instead of repairing broken tool-call pairing on the wire.', check: isBoolean },
  maxPairingRepairsPerTurn: { doc: 'Pairing repairs one request may need before the run fails with `AgentToolPairingError`.', defaultLabel: 'off', check: isLimit },
})
