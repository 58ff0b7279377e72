/** Watchdogs: bounds on provider streams and awaited hooks. */

import { defineKnobs, isLimit } from './define'

/** Timeouts that keep a hung provider or hook from stalling a run. */
export interface WatchdogKnobs {
  /** Time allowed until the first stream event. Default 300000; `0` disables. */
  providerStreamStartTimeoutMs?: number
  /** Longest silence between stream events once streaming. Default off. */
  providerStreamIdleTimeoutMs?: number
  /** Time allowed for a whole provider call. Default 1800000; `0` disables. */
  providerStreamTimeoutMs?: number
  /** Bound on each awaited hook dispatch. Default 300000; `0` disables. */
  hookTimeoutMs?: number
}

/** Defaults of the watchdog slice. */
export const WATCHDOG_DEFAULTS = Object.freeze({
  providerStreamStartTimeoutMs: 300_000,
  providerStreamTimeoutMs: 1_800_000,
  hookTimeoutMs: 300_000,
} satisfies WatchdogKnobs)

/** The watchdog slice. */
export const WATCHDOG_KNOBS = defineKnobs<WatchdogKnobs, typeof WATCHDOG_DEFAULTS>('watchdogs', WATCHDOG_DEFAULTS, {
  providerStreamStartTimeoutMs: { doc: 'Time from the request to the first stream event.', check: isLimit },
  providerStreamIdleTimeoutMs: { doc: 'Longest silence between stream events once streaming.', defaultLabel: 'off', check: isLimit },
  providerStreamTimeoutMs: { doc: 'Time for the whole provider call.', check: isLimit },
  hookTimeoutMs: { doc: 'Bound on each awaited hook.', check: isLimit },
})
