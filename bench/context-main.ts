/** The context benchmark alone: `node --import tsx bench/context-main.ts`. */

import { contextBenchmark } from './context'

await contextBenchmark()
