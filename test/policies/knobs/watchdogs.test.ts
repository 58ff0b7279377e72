import { WATCHDOG_KNOBS } from '../../../src/knobs/watchdog-knobs'
import { runSliceScenarios } from './harness'
import { watchdogScenarios } from './scenarios/watchdogs'

runSliceScenarios(WATCHDOG_KNOBS, watchdogScenarios)
