import type { DocSample, SampleDiagnostic } from '../../scripts/doc-samples'
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectSamples, parseDiagnostics, writeSamples } from '../../scripts/doc-samples'
import { consumerProject, ensureBuilt, root, tsc } from './consumer-project'

// Every complete ```ts sample of README.md and docs/ must compile against the
// built package, in a project made with `tsc --init`, as a user would paste it.
const samples = collectSamples(root)

describe('samples in README.md and docs/', () => {
  let project = ''
  let diagnostics: SampleDiagnostic[] = []
  let byFile = new Map<string, DocSample>()

  beforeAll(() => {
    ensureBuilt()
    project = consumerProject('module')
    byFile = writeSamples(samples, join(project, 'samples'))
    const result = spawnSync(process.execPath, [tsc, '-p', '.', '--noEmit', '--pretty', 'false'], { cwd: project, encoding: 'utf8' })
    diagnostics = parseDiagnostics(`${result.stdout}${result.stderr}`, byFile, join(project, 'samples'), project)
  }, 900_000)

  afterAll(() => {
    if (project)
      rmSync(project, { recursive: true, force: true })
  })

  it('finds the samples', () => {
    expect(samples.length).toBeGreaterThan(20)
    expect(samples.some(sample => sample.page === 'README.md')).toBe(true)
  })

  it('compiles the declarations the samples load', () => {
    expect(diagnostics.filter(d => d.fileName === '').map(d => `${d.where}: ${d.message}`)).toEqual([])
  })

  it.each(samples.map(sample => [`${sample.page}:${sample.line}`, sample.fileName] as const))('%s compiles', (_where, fileName) => {
    expect(diagnostics.filter(d => d.fileName === fileName).map(d => `${d.where}: ${d.message}`)).toEqual([])
  })
})
