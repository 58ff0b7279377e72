import { EXECUTION_KNOBS } from '../../../src/knobs/execution-knobs'
import { runSliceScenarios } from './harness'
import { executionScenarios } from './scenarios/execution'

runSliceScenarios(EXECUTION_KNOBS, executionScenarios)
