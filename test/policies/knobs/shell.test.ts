import { SHELL_KNOBS } from '../../../src/knobs/shell-knobs'
import { runSliceScenarios } from './harness'
import { shellScenarios } from './scenarios/shell'

runSliceScenarios(SHELL_KNOBS, shellScenarios)
