import type { BehaviorPolicy } from './policy'
import { autoCompact } from './auto-compact'
import { codemode } from './codemode'
import { compactStrategy } from './compact-strategy'
import { contextRecovery } from './context-recovery'
import { dedupTools } from './dedup-tools'
import { imageDownscale } from './image-downscale'
import { lengthResume } from './length-resume'
import { maxTurnsWarning } from './max-turns-warning'
import { mediaAgeing } from './media-ageing'
import { pauseContinuation } from './pause-continuation'
import { persistResults } from './persist-results'
import { progressNudges } from './progress-nudges'
import { refusalResume } from './refusal-resume'
import { repeatGuard } from './repeat-guard'
import { runBudgets } from './run-budgets'
import { shellToolNudges } from './shell-tool-nudges'
import { staleReads } from './stale-reads'
import { structuredOutput } from './structured-output'
import { textToolCallRescue } from './text-tool-call-rescue'
import { thinkingDecay } from './thinking-decay'
import { thinkingOverrun } from './thinking-overrun'
import { toolBudgets } from './tool-budgets'
import { toolOutputBudget } from './tool-output-budget'
import { trackShellReads } from './track-shell-reads'
import { unknownToolRecovery } from './unknown-tool-recovery'
import { writeFileExistingPolicy } from './write-file-existing-policy'

export { continueWith, definePolicy, nudge } from './policy'
export type * from './policy'

/**
 * The policies every run attaches, in order. Each reads its own knobs and
 * stays inert when they are unset. Frozen, with their `after` and `events`
 * lists, so every agent made after the first skips checking their shape.
 */
export const BUILT_IN_POLICIES: readonly BehaviorPolicy[] = Object.freeze([
  runBudgets,
  maxTurnsWarning,
  pauseContinuation,
  lengthResume,
  refusalResume,
  writeFileExistingPolicy,
  trackShellReads,
  compactStrategy,
  autoCompact,
  contextRecovery,
  toolBudgets,
  dedupTools,
  toolOutputBudget,
  staleReads,
  persistResults,
  imageDownscale,
  mediaAgeing,
  shellToolNudges,
  unknownToolRecovery,
  textToolCallRescue,
  progressNudges,
  thinkingOverrun,
  repeatGuard,
  thinkingDecay,
  structuredOutput,
  codemode,
].map(frozenPolicy))

function frozenPolicy(policy: BehaviorPolicy): BehaviorPolicy {
  if (policy.after)
    Object.freeze(policy.after)
  if (policy.events)
    Object.freeze(policy.events)
  return Object.freeze(policy)
}
