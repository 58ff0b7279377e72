import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

/**
 * `@opentelemetry/api` is an optional peer: a process whose agents have no
 * `telemetry` never reads a module of it; one whose agent has telemetry
 * loads it at the run's start. Load-order facts of a fresh node on the
 * sources (as in lazy-imports.test.ts), not timings.
 */

const root = fileURLToPath(new URL('../..', import.meta.url))
const recorder = fileURLToPath(new URL('./fixtures/record-loads.mjs', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'zidane-otel-loads-'))
let runs = 0

afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function loadsOf(script: string): Promise<string[]> {
  const file = join(dir, `loads-${++runs}.txt`)
  const src = new URL('src/', `file://${root}/`).href
  await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', recorder, '--input-type=module', '-e', `const src = ${JSON.stringify(src)};\n${script}`], {
    cwd: root,
    env: { ...process.env, LOADS_FILE: file, NODE_OPTIONS: '' },
    timeout: 60_000,
  })
  return readFileSync(file, 'utf8').split('\n').filter(Boolean)
}

const OPENTELEMETRY = /\/node_modules\/@opentelemetry\//

/** A run with a tool call, with or without telemetry. */
function runScript(telemetry: string) {
  return `
  const { createAgent } = await import(new URL('index.ts', src).href)
  const { scriptedProvider } = await import(new URL('testing/index.ts', src).href)
  const tool = { spec: { name: 'echo', description: 'echo', inputSchema: { type: 'object' } }, execute: () => 'ok' }
  const agent = createAgent({ provider: scriptedProvider([{ toolCalls: [{ name: 'echo', input: {} }] }, { text: 'done' }]), tools: { echo: tool }${telemetry} })
  const stats = await agent.run({ prompt: 'hi' })
  if (stats.text !== 'done') throw new Error('the run did not finish: ' + JSON.stringify(stats))
  await agent.destroy()
`
}

/** A loader hook that answers `@opentelemetry/api` as a package that is not installed. */
const WITHOUT_OTEL = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  if (specifier === '@opentelemetry/api') {
    const error = new Error("Cannot find package '@opentelemetry/api' imported from " + context.parentURL)
    error.code = 'ERR_MODULE_NOT_FOUND'
    throw error
  }
  return next(specifier, context)
}
\`))
`)}`

describe('openTelemetry is loaded only when telemetry is on', () => {
  it('without the peer installed, a run with telemetry fails with MissingPeerDependencyError and one without runs', async () => {
    const src = new URL('src/', `file://${root}/`).href
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', WITHOUT_OTEL, '--input-type=module', '-e', `const src = ${JSON.stringify(src)};
      const { createAgent } = await import(new URL('index.ts', src).href)
      const { scriptedProvider } = await import(new URL('testing/index.ts', src).href)
      const traced = createAgent({ provider: scriptedProvider([{ text: 'never' }]), telemetry: {} })
      const failure = await traced.run({ prompt: 'hi' }).then(() => undefined, error => error)
      const plain = await createAgent({ provider: scriptedProvider([{ text: 'done' }]) }).run({ prompt: 'hi' })
      console.log(JSON.stringify({ name: failure?.name, packageName: failure?.packageName, message: failure?.message, text: plain.text }))
    `], { cwd: root, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 })
    const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!)
    expect(outcome).toMatchObject({ name: 'MissingPeerDependencyError', packageName: '@opentelemetry/api', text: 'done' })
    expect(outcome.message).toContain('npm install @opentelemetry/api')
  }, 60_000)

  it('a run without telemetry loads nothing of OpenTelemetry', async () => {
    const loads = await loadsOf(runScript(''))
    expect(loads.some(url => url.endsWith('/src/agent/create-agent.ts'))).toBe(true)
    expect(loads.filter(url => OPENTELEMETRY.test(url))).toEqual([])
    // Nor zidane's own telemetry code: only the option's defaults and its check at createAgent.
    expect(loads.filter(url => /\/src\/telemetry\//.test(url)).map(url => url.slice(url.indexOf('/src/'))).sort()).toEqual(['/src/telemetry/options.ts', '/src/telemetry/validate.ts'])
  }, 60_000)

  it('a run with telemetry loads @opentelemetry/api, and only it', async () => {
    const loads = await loadsOf(runScript(', telemetry: {}'))
    const otel = loads.filter(url => OPENTELEMETRY.test(url))
    expect(otel.length).toBeGreaterThan(0)
    expect(otel.every(url => url.includes('/node_modules/@opentelemetry/api/'))).toBe(true)
    expect(loads.some(url => url.endsWith('/src/telemetry/traced-effects.ts'))).toBe(true)
  }, 60_000)
})
