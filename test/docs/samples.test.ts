import type { DocSample, SampleDiagnostic } from '../../scripts/doc-samples'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectSamples, parseDiagnostics, writeSamples } from '../../scripts/doc-samples'

// Every complete ```ts sample of README.md and docs/ must compile against the
// built package, in a project made with `tsc --init`, as a user would paste it.
const root = fileURLToPath(new URL('../..', import.meta.url))
const samples = collectSamples(root)

/** Newest modification time under `path` (a file or a directory). */
function newestMtime(path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory())
    return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...readdirSync(path).map(entry => newestMtime(join(path, entry))))
}

/** Build `dist/` when it is missing or older than the sources, so a local `npm test` checks the current code. */
function ensureBuilt(): void {
  const marker = join(root, 'dist', 'index.d.ts')
  let built = 0
  try {
    built = statSync(marker).mtimeMs
  }
  catch {}
  const sources = Math.max(newestMtime(join(root, 'src')), newestMtime(join(root, 'package.json')), newestMtime(join(root, 'tsup.config.ts')))
  if (built > sources)
    return
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' })
}

/**
 * A consumer project in a temp dir: `zidane` resolves through the package's
 * own exports map to `dist/`; every other package is the repository's copy.
 */
function consumerProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zidane-samples-'))
  const modules = join(dir, 'node_modules')
  mkdirSync(modules)
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (!entry.startsWith('.') && entry !== 'zidane')
      symlinkSync(join(root, 'node_modules', entry), join(modules, entry))
  }
  symlinkSync(root, join(modules, 'zidane'))
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, type: 'module' })}\n`)
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--init'], { cwd: dir, stdio: 'pipe' })
  return dir
}

describe('samples in README.md and docs/', () => {
  let project = ''
  let diagnostics: SampleDiagnostic[] = []
  let byFile = new Map<string, DocSample>()

  beforeAll(() => {
    ensureBuilt()
    project = consumerProject()
    byFile = writeSamples(samples, join(project, 'samples'))
    const result = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', '.', '--noEmit', '--pretty', 'false'], { cwd: project, encoding: 'utf8' })
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
