import type { BehaviorPolicy } from './policy'
import { runBudgets } from './budgets'
import { lengthResume } from './length-resume'
import { maxTurnsWarning } from './max-turns-warning'
import { pauseContinuation } from './pause-continuation'
import { progressNudges } from './progress-nudges'
import { refusalResume } from './refusal-resume'
import { repeatGuard } from './repeat-guard'
import { shellToolNudges } from './shell-tool-nudges'
import { textToolCallRescue } from './text-tool-call-rescue'
import { thinkingOverrunPolicy } from './thinking-overrun'
import { trackShellReads } from './track-shell-reads'
import { unknownToolRecovery } from './unknown-tool-recovery'
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
  shellToolNudges,
  unknownToolRecovery,
  textToolCallRescue,
  progressNudges,
  thinkingOverrunPolicy,
  repeatGuard,
])
