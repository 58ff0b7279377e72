import { PROVIDER_KNOBS } from '../../../src/knobs/provider-knobs'
import { runSliceScenarios } from './harness'
import { providerScenarios } from './scenarios/provider'

runSliceScenarios(PROVIDER_KNOBS, providerScenarios)
