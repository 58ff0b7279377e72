import { COMPACTION_KNOBS } from '../../../src/knobs/compaction-knobs'
import { runSliceScenarios } from './harness'
import { compactionScenarios } from './scenarios/compaction'

runSliceScenarios(COMPACTION_KNOBS, compactionScenarios)
