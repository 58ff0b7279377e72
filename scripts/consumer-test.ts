// Install the packed package into fresh projects, as a user would, and check
// that it works there: the declarations compile under `tsc --init` defaults
// with `skipLibCheck: false`, every README and docs sample type-checks, every
// subpath loads through `import` and through `require` (zidane/durable through `import` only), `tool()` works
// with the host's zod, an agent's MCP server connects through the built-in
// connector inside the package, and a Chat Completions turn streams through
// the newest `openai` client the dependency range allows. Runs:
//   newest  - the newest zod 4.x and the newest better-sqlite3 that runs on Node 20
//   lowest  - the lowest supported zod 4 and @types/node, no better-sqlite3,
//             under the plain `tsc --init` defaults
//   zod3    - zod 3.25 and its `zod/v4`, at run time only
//   getting-started - the README's "Getting started" commands word for word (the
//             tarball for `zidane`, the newest typescript, tsx and @types/node),
//             its program run offline, its output compared with the README's
// Usage: npm run test:consumer -- [newest|lowest|zod3 ...]
// Everything (npm's cache included) lives in one temp dir, removed at the end.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { collectSamples, parseDiagnostics, writeSamples } from './doc-samples'
import { readGettingStarted } from './getting-started'

const root = fileURLToPath(new URL('..', import.meta.url))
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>
  devDependencies: Record<string, string>
}
const subpaths = Object.keys(manifest.exports)
  .filter(key => key !== './package.json')
  .map(key => (key === '.' ? 'zidane' : `zidane/${key.slice(2)}`))

interface Scenario {
  /** Packages installed next to the tarball. */
  packages: string[]
  /** Type-check the samples and the declarations. */
  typecheck: boolean
  /**
   * Check every declaration file too. Off only where a dependency's own
   * declarations fail the check (@types/node before 20.19.20 does, under
   * `exactOptionalPropertyTypes`), which says nothing about zidane's.
   */
  checkLibraries: boolean
  /** Whether better-sqlite3 is installed (else `zidane/session/sqlite` must fail naming it). */
  sqlite: boolean
  /** Module the zod check imports `z` from. */
  zodImport: string
}

const typescript = `typescript@${manifest.devDependencies.typescript}`
// The optional Restate SDK where the declarations and samples are type-checked: `zidane/durable`'s
// declarations name its types, and the docs' Restate samples import it. The zod3 run loads the entry without it.
const restateSdk = `@restatedev/restate-sdk@${manifest.devDependencies['@restatedev/restate-sdk']}`
// The OpenTelemetry packages the observability page's samples import (the API is an optional peer, the SDK parts are the host's).
const openTelemetry = ['@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-metrics'].map(name => `${name}@${manifest.devDependencies[name]}`)
const vitest = `vitest@${manifest.devDependencies.vitest}`
const vite = `vite@${manifest.devDependencies.vite}`
const SCENARIOS: Record<string, Scenario> = {
  newest: {
    // better-sqlite3 13.x requires Node >= 22; on Node 20 the newest usable release is the newest 12.x.
    packages: ['zod@^4', 'better-sqlite3@^12', '@types/node@^20', restateSdk, ...openTelemetry, typescript, vitest, vite],
    typecheck: true,
    checkLibraries: true,
    sqlite: true,
    zodImport: 'zod',
  },
  lowest: {
    packages: ['zod@4.0.0', '@types/node@20.19.0', restateSdk, ...openTelemetry, typescript, vitest, vite],
    typecheck: true,
    checkLibraries: false,
    sqlite: false,
    zodImport: 'zod',
  },
  zod3: {
    packages: ['zod@3.25.76'],
    typecheck: false,
    checkLibraries: false,
    sqlite: false,
    zodImport: 'zod/v4',
  },
}

const LINE_START = /^/gm
const INSTALL_ZIDANE = /npm install zidane\b/
const PROJECT_DIR = /mkdir (\S+)/
const work = mkdtempSync(join(tmpdir(), 'zidane-consumer-'))
const env = { ...process.env, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' }

function run(command: string, args: string[], cwd: string, runEnv: NodeJS.ProcessEnv = env): string {
  try {
    return execFileSync(command, args, { cwd, env: runEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  }
  catch (error) {
    const failed = error as { stdout?: string, stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`)
  }
}

function step(label: string, action: () => void): void {
  const started = Date.now()
  action()
  console.log(`  ok  ${label} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
}

/** The tarball `npm pack` makes of the current build. */
function pack(): string {
  if (!existsSync(join(root, 'dist', 'index.js')))
    run('npm', ['run', 'build'], root)
  const out = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root)) as { filename: string }[]
  return join(work, out[0].filename)
}

function RUNTIME_CHECK(zodImport: string, sqlite: boolean): string {
  return `
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { z } from '${zodImport}'

const subpaths = ${JSON.stringify(subpaths)}
const require = createRequire(import.meta.url)
for (const name of subpaths) {
  if (name === 'zidane/session/sqlite' && !${sqlite}) {
    // The entry loads without the optional peer; creating a store names the package and the install command.
    const { createSqliteStore } = await import(name)
    assert.throws(() => createSqliteStore({ path: ':memory:' }), error => error?.name === 'MissingPeerDependencyError' && String(error.message).includes('npm install better-sqlite3'))
    continue
  }
  const viaImport = await import(name)
  assert.ok(Object.keys(viaImport).length > 0, name + ' exports something')
  if (name === 'zidane/durable') {
    // It awaits the optional Restate SDK's ES module at load (the host's own instance), so it loads through import only.
    assert.throws(() => require(name), error => error?.code === 'ERR_REQUIRE_ASYNC_MODULE')
    continue
  }
  // Node >= 20.19 loads ES modules from require(); the README promises it.
  assert.deepEqual(Object.keys(require(name)).sort(), Object.keys(viaImport).sort(), name + ' through require')
}

const { createAgent, tool } = await import('zidane')
const { scriptedProvider } = await import('zidane/testing')
const weather = tool({
  name: 'get_weather',
  description: 'Current weather',
  input: z.object({ city: z.string().describe('City name'), days: z.number().int().default(1) }).describe('Where and how long'),
  execute: async ({ city, days }) => 'Sunny in ' + city + ' for ' + days,
})
assert.equal(weather.spec.inputSchema.description, 'Where and how long')
assert.equal(weather.spec.inputSchema.properties.city.description, 'City name')
assert.deepEqual(weather.spec.inputSchema.required, ['city'])
assert.match(weather.validate({ city: 3 }).error, /^city: /)
const provider = scriptedProvider([{ toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }] }, { text: 'done' }])
const stats = await createAgent({ provider, tools: { weather } }).run({ prompt: 'Weather?' })
assert.equal(stats.text, 'done')
assert.equal(provider.requests[1].messages.at(-1).content[0].output, 'Sunny in Paris for 1')

// An agent with an MCP server and no mcpConnector finds the built-in connector inside the installed package.
{
  const { fileURLToPath } = await import('node:url')
  const counter = fileURLToPath(new URL('./counter-server.mjs', import.meta.url))
  const mcpProvider = scriptedProvider([{ toolCalls: [{ name: 'mcp_counter_count', input: {} }] }, { text: 'counted' }])
  const mcpAgent = createAgent({ provider: mcpProvider, mcpServers: [{ name: 'counter', transport: 'stdio', command: process.execPath, args: [counter] }] })
  try {
    assert.equal((await mcpAgent.run({ prompt: 'Count.' })).text, 'counted')
    const result = mcpProvider.requests[1].messages.at(-1).content[0]
    assert.ok(!result.isError && JSON.parse(result.output).count === 1, 'the MCP tool answered: ' + JSON.stringify(result))
  }
  finally {
    await mcpAgent.destroy()
  }
  console.log('MCP server connected through the built-in connector')
}

if (${sqlite}) {
  const { createSession } = await import('zidane/session')
  const { createSqliteStore } = await import('zidane/session/sqlite')
  const store = createSqliteStore({ path: ':memory:' })
  const session = await createSession({ store })
  await createAgent({ provider: scriptedProvider([{ text: 'stored' }]), session }).run({ prompt: 'hi' })
  const loaded = await store.load(session.id)
  assert.ok(loaded && loaded.turns.length === 2, 'the prompt and the answer are stored')
  await store.close?.()
}
// A streamed Chat Completions turn through the openai client this install resolved (the newest in range),
// against a local server: a body that ends with [DONE] and no finish_reason is a stop, one without it was cut off.
const { createServer } = await import('node:http')
const { readFileSync } = await import('node:fs')
const { openaiCompat } = await import('zidane/providers/openai-compat')
const openaiVersion = JSON.parse(readFileSync(new URL('./node_modules/openai/package.json', import.meta.url), 'utf8')).version
const frame = chunk => 'data: ' + JSON.stringify(chunk) + '\\r\\n\\r\\n'
const bodies = [
  [{ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }] }, { choices: [{ index: 0, delta: { content: 'lo' } }] }, { choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } }].map(frame).join('') + 'data: [DONE]\\r\\n\\r\\n',
  frame({ choices: [{ index: 0, delta: { content: 'cut' } }] }),
]
const server = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    response.end(bodies.shift() ?? '')
  })
})
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
try {
  const compat = openaiCompat({ baseURL: 'http://127.0.0.1:' + server.address().port + '/v1', defaultModel: 'm', name: 'local' })
  const streamed = await createAgent({ provider: compat }).run({ prompt: 'hi' })
  assert.equal(streamed.text, 'Hello')
  assert.equal(streamed.totalIn, 5)
  const texts = []
  const cut = await compat.stream({ model: 'm', system: 's', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], thinking: 'off', signal: new AbortController().signal }, { onText: text => texts.push(text), onThinking: () => {} }).then(() => undefined, error => error)
  assert.deepEqual(texts, ['cut'])
  assert.equal(cut?.kind, 'network', 'a body without [DONE] is a cut-off stream')
}
finally {
  server.close()
}
console.log('streamed Chat Completions turn ok with openai ' + openaiVersion)
console.log('runtime checks passed')
`
}

// Appended to RUNTIME_CHECK, whose \`assert\` and \`tool\` it uses.
const ZOD3_CHECK = `
import { z as z3 } from 'zod'
assert.throws(() => tool({ name: 'old', description: 'zod 3', input: z3.object({ a: z3.string() }), execute: () => '' }),
  error => error instanceof TypeError && error.message.includes("zod/v4"))
console.log('zod 3 schema refused with a TypeError')
`

function scenario(name: string, spec: Scenario, tarball: string): void {
  console.log(`== consumer: ${name} (${spec.packages.join(', ')})`)
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({
    name: `consumer-${name}`,
    private: true,
    type: 'module',
    allowScripts: { 'better-sqlite3': true, 'esbuild': true },
  }, null, 2)}\n`)
  step('install', () => run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball, ...spec.packages], dir))
  if (spec.typecheck) {
    step(`tsc --init${spec.checkLibraries ? ', skipLibCheck: false' : ''}, every subpath and sample`, () => {
      run(process.execPath, ['node_modules/typescript/bin/tsc', '--init'], dir)
      const config = join(dir, 'tsconfig.json')
      const text = readFileSync(config, 'utf8')
      if (!text.includes('"skipLibCheck": true'))
        throw new Error('tsc --init no longer writes skipLibCheck: true; update this script')
      if (spec.checkLibraries)
        writeFileSync(config, text.replace('"skipLibCheck": true', '"skipLibCheck": false'))
      const samplesDir = join(dir, 'samples')
      const byFile = writeSamples(collectSamples(root), samplesDir)
      writeFileSync(join(samplesDir, 'every_subpath.ts'), `${subpaths.map((path, index) => `import * as entry${index} from '${path}'`).join('\n')}\nconsole.log(${subpaths.map((_, index) => `entry${index}`).join(', ')})\n`)
      let output = ''
      try {
        run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.', '--noEmit', '--pretty', 'false'], dir)
      }
      catch (error) {
        output = (error as Error).message
      }
      const diagnostics = parseDiagnostics(output, byFile, samplesDir, dir)
      // With skipLibCheck off, another package's own declarations may not check (the optional
      // Restate SDK's do not under the newest TypeScript): named here, but only zidane's and the samples' fail the run.
      const theirs = diagnostics.filter(d => d.where.startsWith('node_modules/') && !d.where.startsWith('node_modules/zidane/'))
      for (const d of theirs)
        console.log(`  note: not zidane's: ${d.where}: ${d.message.split('\n')[0]}`)
      if (output !== '' && (diagnostics.length === 0 || theirs.length < diagnostics.length)) {
        const lines = diagnostics.length > 0 ? diagnostics.filter(d => !theirs.includes(d)).map(d => `${d.where}: ${d.message}`) : [output]
        throw new Error(`type errors in the consumer project:\n${lines.join('\n')}`)
      }
    })
  }
  copyFileSync(join(root, 'test', 'mcp', 'fixtures', 'counter-server.mjs'), join(dir, 'counter-server.mjs'))
  writeFileSync(join(dir, 'check.mjs'), name === 'zod3' ? `${RUNTIME_CHECK(spec.zodImport, spec.sqlite)}\n${ZOD3_CHECK}` : RUNTIME_CHECK(spec.zodImport, spec.sqlite))
  step('every subpath through import and require; tool() with the host zod', () => {
    process.stdout.write(`${run(process.execPath, ['check.mjs'], dir).trimEnd().replace(LINE_START, '      ')}\n`)
  })
}

/** Follow the README's "Getting started" word for word, the tarball standing in for the registry's `zidane`. */
function followGettingStarted(tarball: string): void {
  console.log('== consumer: getting-started (the README\'s commands, newest typescript, tsx and @types/node)')
  const steps = readGettingStarted(root)
  const setup = steps.setup.replace(INSTALL_ZIDANE, `npm install ${tarball}`)
  const project = PROJECT_DIR.exec(steps.setup)?.[1]
  if (setup === steps.setup || project === undefined)
    throw new Error('the Getting started set-up no longer makes a folder and runs `npm install zidane`; update this script')
  const parent = join(work, 'getting-started')
  mkdirSync(parent)
  step('the set-up commands', () => run('sh', ['-ec', setup], parent))
  writeFileSync(join(parent, project, steps.file), steps.program)
  const offline = { ...env }
  delete offline.ANTHROPIC_API_KEY
  let printed = ''
  step(steps.run.join(', '), () => {
    for (const command of steps.run)
      printed = run('sh', ['-ec', command], join(parent, project), offline)
  })
  if (printed !== steps.output)
    throw new Error(`the program printed:\n${printed}\nthe README shows:\n${steps.output}`)
  console.log('  ok  printed the output the README shows')
}

const wanted = process.argv.slice(2)
const names = wanted.length > 0 ? wanted : [...Object.keys(SCENARIOS), 'getting-started']
try {
  const tarball = pack()
  for (const name of names) {
    if (name === 'getting-started') {
      followGettingStarted(tarball)
      continue
    }
    const spec = SCENARIOS[name]
    if (!spec)
      throw new Error(`unknown scenario "${name}"; one of ${Object.keys(SCENARIOS).join(', ')}, getting-started`)
    scenario(name, spec, tarball)
  }
  console.log('consumer checks passed')
}
finally {
  rmSync(work, { recursive: true, force: true })
}
