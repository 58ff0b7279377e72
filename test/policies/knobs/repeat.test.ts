import { REPEAT_KNOBS } from '../../../src/knobs/repeat-knobs'
import { runSliceScenarios } from './harness'
import { repeatScenarios } from './scenarios/repeat'

runSliceScenarios(REPEAT_KNOBS, repeatScenarios)
