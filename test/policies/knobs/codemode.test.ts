import { CODEMODE_KNOBS } from '../../../src/knobs/codemode-knobs'
import { runSliceScenarios } from './harness'
import { codemodeScenarios } from './scenarios/codemode'

runSliceScenarios(CODEMODE_KNOBS, codemodeScenarios)
