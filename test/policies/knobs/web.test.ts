import { WEB_KNOBS } from '../../../src/knobs/web-knobs'
import { runSliceScenarios } from './harness'
import { webScenarios } from './scenarios/web'

runSliceScenarios(WEB_KNOBS, webScenarios)
