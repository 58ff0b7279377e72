import type { TestSpecification } from 'vitest/node'
import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { BaseSequencer } from 'vitest/node'

/**
 * Files that spend minutes of one worker on a clean clone: the doc samples
 * build `dist/` (its declaration bundle is most of it) and type-check a
 * consumer project. They start first, so the other files run beside them
 * instead of leaving them to run alone at the end.
 */
const LONG_FILES = /\/test\/docs\/samples\.test\.ts$/

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const long = sorted.filter(file => LONG_FILES.test(file.moduleId))
    return [...long, ...sorted.filter(file => !long.includes(file))]
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test-inference/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores, so a single worker
    // on two cores. Most files wait on child processes, sockets and timers
    // more than they compute: give every core a worker.
    maxWorkers: availableParallelism(),
    sequence: { sequencer: LongFilesFirst },
  },
})
