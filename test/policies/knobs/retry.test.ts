import { RETRY_KNOBS } from '../../../src/knobs/retry-knobs'
import { runSliceScenarios } from './harness'
import { retryScenarios } from './scenarios/retry'

runSliceScenarios(RETRY_KNOBS, retryScenarios)
