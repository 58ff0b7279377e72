import { LIMIT_KNOBS } from '../../../src/knobs/limit-knobs'
import { runSliceScenarios } from './harness'
import { limitScenarios } from './scenarios/limits'

runSliceScenarios(LIMIT_KNOBS, limitScenarios)
