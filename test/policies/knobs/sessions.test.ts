import { SESSION_KNOBS } from '../../../src/knobs/session-knobs'
import { runSliceScenarios } from './harness'
import { sessionScenarios } from './scenarios/sessions'

runSliceScenarios(SESSION_KNOBS, sessionScenarios)
