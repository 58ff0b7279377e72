import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consumerProject, ensureBuilt, root, tsc } from './consumer-project'

// The README's "Getting started", followed as a newcomer would: its program,
// saved in a fresh ES module project, runs offline and prints exactly the
// output the README shows; in the CommonJS project `npm init -y` makes, it
// does not compile, which is why the README switches the project to ESM.

/** The fences of the README's "Getting started" section, in order, by language. */
function gettingStarted(): { sh: string, ts: string, output: string } {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const start = readme.indexOf('\n## Getting started\n')
  const end = readme.indexOf('\n## ', start + 1)
  expect(start).toBeGreaterThan(-1)
  const section = readme.slice(start, end)
  const fence = (language: string) => {
    const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)
    expect(match, `a \`\`\`${language} fence in Getting started`).not.toBeNull()
    return match![1]
  }
  return { sh: fence('sh'), ts: fence('ts'), output: fence('text') }
}

/** The environment of a user without an API key. */
function withoutKeys(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.ANTHROPIC_API_KEY
  delete env.ZIDANE_DEBUG
  return env
}

describe('getting started in README.md', () => {
  const steps = gettingStarted()
  const projects: string[] = []

  beforeAll(() => {
    ensureBuilt()
  }, 900_000)

  afterAll(() => {
    for (const dir of projects)
      rmSync(dir, { recursive: true, force: true })
  })

  it('switches the project to ES modules and writes the tsconfig with tsc --init', () => {
    expect(steps.sh).toContain('npm init -y')
    expect(steps.sh).toContain('npm pkg set type=module')
    expect(steps.sh).toContain('npx tsc --init')
  })

  it('runs offline with tsx and prints the output the README shows', () => {
    const dir = consumerProject('module')
    projects.push(dir)
    writeFileSync(join(dir, 'agent.ts'), steps.ts)
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'agent.ts'], { cwd: dir, env: withoutKeys(), encoding: 'utf8', timeout: 120_000 })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(run.stdout).toBe(steps.output)
  }, 180_000)

  it('does not compile in the CommonJS project npm init -y makes', () => {
    const dir = consumerProject()
    projects.push(dir)
    writeFileSync(join(dir, 'agent.ts'), steps.ts)
    const check = spawnSync(process.execPath, [tsc, '-p', '.', '--noEmit', '--pretty', 'false'], { cwd: dir, encoding: 'utf8' })
    expect(check.status).not.toBe(0)
    expect(check.stdout).toContain('error TS1295')
  }, 300_000)
})
