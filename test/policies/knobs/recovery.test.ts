import { RECOVERY_KNOBS } from '../../../src/knobs/recovery-knobs'
import { runSliceScenarios } from './harness'
import { recoveryScenarios } from './scenarios/recovery'

runSliceScenarios(RECOVERY_KNOBS, recoveryScenarios)
