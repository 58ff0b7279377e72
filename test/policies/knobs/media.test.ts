import { MEDIA_KNOBS } from '../../../src/knobs/media-knobs'
import { runSliceScenarios } from './harness'
import { mediaScenarios } from './scenarios/media'

runSliceScenarios(MEDIA_KNOBS, mediaScenarios)
