import { createMemoryStore } from '../../src/session/stores'
import { describeStoreConformance } from './store-conformance'

describeStoreConformance('memory', () => createMemoryStore())
