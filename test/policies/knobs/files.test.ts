import { FILE_KNOBS } from '../../../src/knobs/file-knobs'
import { runSliceScenarios } from './harness'
import { fileScenarios } from './scenarios/files'

runSliceScenarios(FILE_KNOBS, fileScenarios)
