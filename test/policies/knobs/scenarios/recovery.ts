import type { RecoveryKnobs } from '../../../../src/knobs/recovery-knobs'
import type { ScriptedTurn } from '../../../../src/testing'
import type { SliceScenarios } from '../harness'
import { scriptedProvider } from '../../../../src/testing'
import { endOf } from '../harness'

function script(...turns: ScriptedTurn[]) {
  return scriptedProvider(turns)
}
const cut = (text: string): ScriptedTurn => ({ text, finishReason: 'length' })

export const recoveryScenarios: SliceScenarios<RecoveryKnobs> = {
  maxConsecutivePauseTurns: {
    value: 2,
    outcome: behavior => endOf({ provider: script({ finishReason: 'pause' }, { finishReason: 'pause' }, { finishReason: 'pause' }, { text: 'done' }), behavior }),
    unset: 'completed',
    set: 'pause-exhausted',
  },
  resumeOnMaxTokens: {
    value: true,
    outcome: behavior => endOf({ provider: script(cut('part'), { text: 'rest' }), behavior }),
    unset: 'length',
    set: 'completed',
  },
  maxConsecutiveLengthResumes: {
    value: 2,
    outcome: behavior => endOf({ provider: script(cut('a'), cut('b'), cut('c'), { text: 'done' }), behavior: { resumeOnMaxTokens: true, ...behavior } }),
    unset: 'completed',
    set: 'length-exhausted',
  },
  maxConsecutiveRefusalResumes: {
    value: 0,
    outcome: behavior => endOf({ provider: script({ text: 'no', finishReason: 'content-filter' }, { text: 'fine' }), behavior }),
    unset: 'completed',
    set: 'content-filter',
  },
}
