/** Host data that rides along with the behavior but is never read by zidane. */

import { defineKnobs, isRecord } from './define'

/** Host-owned settings. */
export interface HostKnobs {
  /** Host-owned settings the SDK never reads; surfaced on `ToolContext.behavior.extensions`. */
  extensions?: Record<string, unknown>
}

/** The host slice. */
export const HOST_KNOBS = defineKnobs<HostKnobs, object>('host data', {}, {
  extensions: { doc: 'Host-owned settings, never read by zidane, surfaced on `ToolContext.behavior.extensions`; merged one level deep.', defaultLabel: 'none', check: isRecord },
})
