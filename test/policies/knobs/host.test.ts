import { HOST_KNOBS } from '../../../src/knobs/host-knobs'
import { runSliceScenarios } from './harness'
import { hostScenarios } from './scenarios/host'

runSliceScenarios(HOST_KNOBS, hostScenarios)
