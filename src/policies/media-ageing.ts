import type { BehaviorPolicy } from './policy'
import { mediaAgeingStage } from '../wire/stages/media-ageing'

/**
 * `mediaAgeing`: with `mediaKeepTurns` or `mediaBudget`, contributes the
 * media-ageing wire stage (the window wins when both are set). The stage also
 * holds the serving provider's `maxMediaPerRequest`: it lowers the budget's
 * `maxItems`, and caps what a window leaves inline.
 */
export const mediaAgeing: BehaviorPolicy<null> = {
  name: 'media-ageing',
  enabled: behavior => behavior.mediaKeepTurns !== undefined || behavior.mediaBudget !== undefined,
  wireStages: (behavior) => {
    const keepTurns = behavior.mediaKeepTurns
    return [mediaAgeingStage(keepTurns !== undefined ? { keepTurns } : { budget: behavior.mediaBudget })]
  },
}
