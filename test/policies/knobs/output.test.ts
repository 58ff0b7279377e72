import { OUTPUT_KNOBS } from '../../../src/knobs/output-knobs'
import { runSliceScenarios } from './harness'
import { outputScenarios } from './scenarios/output'

runSliceScenarios(OUTPUT_KNOBS, outputScenarios)
