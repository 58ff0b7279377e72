import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readGettingStarted } from '../../scripts/getting-started'
import { consumerProject, ensureBuilt, root, tsc } from './consumer-project'

// The README's "Getting started", followed as a newcomer would: its program,
// saved in a fresh ES module project, runs offline and prints exactly the
// output the README shows; in the CommonJS project `npm init -y` makes, it
// does not compile, which is why the README switches the project to ESM.
// (`npm run test:consumer` follows the same steps against the registry and
// the packed tarball.)

/** The environment of a user without an API key. */
function withoutKeys(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.ANTHROPIC_API_KEY
  delete env.ZIDANE_DEBUG
  return env
}

describe('getting started in README.md', () => {
  const steps = readGettingStarted(root)
  const projects: string[] = []

  beforeAll(() => {
    ensureBuilt()
  }, 900_000)

  afterAll(() => {
    for (const dir of projects)
      rmSync(dir, { recursive: true, force: true })
  })

  it('switches the project to ES modules and writes the tsconfig with tsc --init', () => {
    expect(steps.setup).toContain('npm init -y')
    expect(steps.setup).toContain('npm pkg set type=module')
    expect(steps.setup).toContain('npx tsc --init')
    expect(steps.run).toContain(`npx tsx ${steps.file}`)
  })

  it('runs offline with tsx and prints the output the README shows', () => {
    const dir = consumerProject('module')
    projects.push(dir)
    writeFileSync(join(dir, steps.file), steps.program)
    const run = spawnSync(process.execPath, ['--import', 'tsx', steps.file], { cwd: dir, env: withoutKeys(), encoding: 'utf8', timeout: 120_000 })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(run.stdout).toBe(steps.output)
  }, 180_000)

  it('does not compile in the CommonJS project npm init -y makes', () => {
    const dir = consumerProject()
    projects.push(dir)
    writeFileSync(join(dir, steps.file), steps.program)
    const check = spawnSync(process.execPath, [tsc, '-p', '.', '--noEmit', '--pretty', 'false'], { cwd: dir, encoding: 'utf8' })
    expect(check.status).not.toBe(0)
    expect(check.stdout).toContain('error TS1295')
  }, 300_000)
})
