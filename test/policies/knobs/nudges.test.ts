import { NUDGE_KNOBS } from '../../../src/knobs/nudge-knobs'
import { runSliceScenarios } from './harness'
import { nudgeScenarios } from './scenarios/nudges'

runSliceScenarios(NUDGE_KNOBS, nudgeScenarios)
