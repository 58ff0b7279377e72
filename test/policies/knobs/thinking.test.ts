import { THINKING_KNOBS } from '../../../src/knobs/thinking-knobs'
import { runSliceScenarios } from './harness'
import { thinkingScenarios } from './scenarios/thinking'

runSliceScenarios(THINKING_KNOBS, thinkingScenarios)
