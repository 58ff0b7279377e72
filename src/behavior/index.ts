import type { BehaviorPolicy } from './policy'
import { runBudgets } from './budgets'
import { lengthResume } from './length-resume'
import { maxTurnsWarning } from './max-turns-warning'
import { imageDownscale, mediaAgeing } from './media'
import { pauseContinuation } from './pause-continuation'
import { persistResults } from './persist-results'
import { refusalResume } from './refusal-resume'
import { trackShellReads } from './track-shell-reads'
import { writeFileExistingPolicy } from './write-file-existing-policy'

export { continueWith, definePolicy, nudge } from './policy'
export type * from './policy'

/** The policies every run attaches, in order. Each reads its own knobs and stays inert when they are unset. */
export const BUILT_IN_POLICIES: readonly BehaviorPolicy[] = Object.freeze([
  runBudgets,
  maxTurnsWarning,
  pauseContinuation,
  lengthResume,
  refusalResume,
  writeFileExistingPolicy,
  trackShellReads,
  persistResults,
  imageDownscale,
  mediaAgeing,
])
