import { PERSIST_KNOBS } from '../../../src/knobs/persist-knobs'
import { runSliceScenarios } from './harness'
import { persistScenarios } from './scenarios/persist'

runSliceScenarios(PERSIST_KNOBS, persistScenarios)
