import type { BehaviorPolicy } from './policy'
import { runBudgets } from './budgets'
import { lengthResume } from './length-resume'
import { maxTurnsWarning } from './max-turns-warning'
import { pauseContinuation } from './pause-continuation'
import { refusalResume } from './refusal-resume'
import { structuredOutput } from './structured-output'
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
  structuredOutput,
])
