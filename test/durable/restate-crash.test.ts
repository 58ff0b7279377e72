import type { ChildProcess } from 'node:child_process'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { KillPoint } from '../support/restate-crash-child'
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFileStore } from '../../src/session/stores'
import { bundleChildScript } from '../support/child-bundle'
import { startFakeAnthropic } from '../support/fake-anthropic'
import { answer, CRASH_SCRIPT, isSummaryRequest } from '../support/restate-crash-script'
import { freePort, killAndWait, startRestateServer } from '../support/restate-server'

// A worker serving restateAgent is killed with SIGKILL at journal
// boundaries of a scripted run (12 model turns, 16 tool calls in parallel
// batches, one compaction) and restarted each time. The run must complete
// with every side effect done once, every model answer used, no journaled
// turn asked again, and a session equal, byte for byte, to the one an
// uninterrupted run of the same invocation stores.
//
// The two runs are the same invocation (same object key and idempotency key,
// so Restate gives them the same invocation id, hence the same seeded ids),
// each on its own server and store. The time a step's body reads is the
// one thing that differs between two real runs, so the crashed run's workers
// read back, step by step, the times the uninterrupted run's steps read
// (TIME_REPLAY_FILE); any time the run took from outside its journal would
// show as a difference.
//
// Sampling: by default one kill per boundary kind (after a model call, in
// the middle of a parallel batch, after a side-effecting tool, during
// compaction, before a session write), so the suite stays fast. Set
// ZIDANE_RESTATE_CRASH_EVERY=1 to kill before every journal step instead
// (one step of progress per worker life; a few minutes).

const EVERY = process.env.ZIDANE_RESTATE_CRASH_EVERY === '1'
/** A bound on one run of the script, restarts included. */
const RUN_TIMEOUT_MS = EVERY ? 280_000 : 25_000
const SESSION = 'orders'
const IDEMPOTENCY = 'orders-run-1'
const root = fileURLToPath(new URL('../..', import.meta.url))

let workDir: string
let workerScript: string
const children = new Set<ChildProcess>()

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'zidane-restate-crash-'))
  // The bundle leaves the Restate SDK external, so the worker loads the same copy zidane/durable does; it resolves from here.
  await symlink(join(root, 'node_modules'), join(workDir, 'node_modules'))
  workerScript = await bundleChildScript('restate-crash-child', workDir, ['@restatedev/restate-sdk'])
}, 60_000)

afterAll(async () => {
  await Promise.all(Array.from(children, child => killAndWait(child, 'SIGKILL', 5_000)))
  await rm(workDir, { recursive: true, force: true })
})

interface Outcome {
  stats: any
  lives: number
  log: Record<string, any>[]
  requests: FakeAnthropic['requests']
  session: string
  storeDir: string
}

/** One run of the script on its own server, model and store; the worker restarted each time it dies. */
async function runScript(name: string, plan: KillPoint[], timeFile?: string, timeReplayFile?: string): Promise<Outcome> {
  const server = await startRestateServer()
  const model = await startFakeAnthropic({ fallback: answer })
  const storeDir = join(workDir, `${name}-store`)
  const logFile = join(workDir, `${name}.log`)
  await mkdir(storeDir)
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PORT: String(port),
    STORE_DIR: storeDir,
    MODEL_URL: model.url,
    LOG_FILE: logFile,
    KILL_PLAN: JSON.stringify(plan),
    ...(timeFile ? { TIME_FILE: timeFile } : {}),
    ...(timeReplayFile ? { TIME_REPLAY_FILE: timeReplayFile } : {}),
  }
  let lives = 0
  let stopped = false
  let current: ChildProcess | undefined
  const startWorker = () => new Promise<void>((resolve, reject) => {
    lives++
    const child = spawn(process.execPath, [workerScript], { env, cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] })
    children.add(child)
    current = child
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('ready'))
        resolve()
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once('exit', (code, signal) => {
      children.delete(child)
      if (stopped)
        return
      if (signal === 'SIGKILL')
        void startWorker()
      else
        reject(new Error(`worker exited with ${code ?? signal}: ${output}`))
    })
  })
  try {
    await startWorker()
    await server.register(`http://127.0.0.1:${port}`)
    const stats = await server.call(`/zidane-agent/${SESSION}/run`, { prompt: 'Process orders A and B.' }, { idempotencyKey: IDEMPOTENCY, signal: AbortSignal.timeout(RUN_TIMEOUT_MS) })
    stopped = true
    if (current)
      await killAndWait(current, 'SIGKILL', 5_000)
    const log = (await readFile(logFile, 'utf8')).split('\n').filter(Boolean).map(line => JSON.parse(line) as Record<string, any>)
    const data = await createFileStore({ dir: storeDir }).load(SESSION)
    return { stats, lives, log, requests: [...model.requests], session: JSON.stringify({ turns: data?.turns, runs: data?.runs }), storeDir }
  }
  finally {
    stopped = true
    if (current)
      await killAndWait(current, 'SIGKILL', 5_000)
    await model.close()
    await server.stop()
  }
}

/** `value` without the fields a run measures live on the wall clock. */
function withoutLiveTimings(value: unknown): unknown {
  if (Array.isArray(value))
    return value.map(withoutLiveTimings)
  if (value === null || typeof value !== 'object')
    return value
  return Object.fromEntries(Object.entries(value).filter(([key]) => !/(?:FirstToken|Duration)Ms$/.test(key)).map(([key, item]) => [key, withoutLiveTimings(item)]))
}

const PLAN: KillPoint[] = EVERY
  ? [{ every: true }, { batch: true }]
  : [
      { after: '^model:turn:', nth: 2 }, // after a model call was journaled
      { batch: true }, // in the middle of a parallel batch: one call journaled, the slow one running
      { after: '^tool:.*toolu_2_0' }, // after the charge of turn 2 (a counted side effect)
      { after: '^model:side-call:' }, // during compaction: its summary journaled, its writes not yet
      { after: '^tool:.*toolu_7_0' }, // after another side effect, late in the run
    ]

const effects = (outcome: Outcome) => outcome.log.filter(line => line.kind === 'effect')
const requestKeys = (outcome: Outcome) => outcome.requests.map(request => JSON.stringify(request.body.messages))

describe('restateAgent survives SIGKILL at journal boundaries', () => {
  let clean: Outcome
  let crashed: Outcome

  beforeAll(async () => {
    const timeFile = join(workDir, 'times.log')
    clean = await runScript('clean', [], timeFile)
    // The step times the uninterrupted run read, by step name, for the crashed run's workers to read back.
    const times: Record<string, number[]> = {}
    for (const line of clean.log.filter(line => line.kind === 'time'))
      (times[line.name] ??= [])[line.index] = line.value
    const replayFile = join(workDir, 'times.json')
    await writeFile(replayFile, JSON.stringify(times))
    crashed = await runScript('crashed', PLAN, undefined, replayFile)
  }, 2 * RUN_TIMEOUT_MS + 5_000)

  it('the uninterrupted run is the scripted run, with parallel batches and a compaction', () => {
    expect(clean.lives).toBe(1)
    expect(clean.stats.stopReason).toBe('completed')
    const calls = CRASH_SCRIPT.flatMap(turn => turn.calls)
    expect(effects(clean)).toHaveLength(calls.filter(call => call.name !== 'lookup').length)
    expect(clean.requests.filter(isSummaryRequest)).toHaveLength(1)
    expect(clean.requests.length).toBe(CRASH_SCRIPT.length + 1)
  })

  it('parallel calls stay parallel: the two slow audits of one batch overlap, in both runs', () => {
    for (const outcome of [clean, crashed]) {
      const [first, second] = ['toolu_9_0', 'toolu_9_1'].map(id => effects(outcome).find(line => line.callId === id)!)
      expect(second.started).toBeLessThan(first.at)
      expect(first.started).toBeLessThan(second.at)
    }
  })

  it('the crashed run was killed at each planned boundary and completed', () => {
    const kills = crashed.log.filter(line => line.kind === 'kill')
    if (EVERY)
      expect(kills.length).toBeGreaterThanOrEqual(40)
    else
      expect(kills.map(kill => kill.point).sort()).toEqual(PLAN.map((_, i) => String(i)))
    expect(crashed.lives).toBe(kills.length + 1)
    expect(crashed.stats.stopReason).toBe('completed')
    // The same stats, but for what the run measured live (time to first token, stream durations), which the
    // life that made each call measured.
    expect(withoutLiveTimings(crashed.stats)).toEqual(withoutLiveTimings(clean.stats))
  })

  it('no side-effecting tool ran twice', () => {
    const ids = effects(crashed).map(line => line.callId)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.sort()).toEqual(effects(clean).map(line => line.callId).sort())
  })

  it('the model was never asked again for a journaled turn, and no answer was lost', () => {
    expect(crashed.requests.length).toBe(clean.requests.length)
    expect(new Set(requestKeys(crashed)).size).toBe(crashed.requests.length)
    expect(requestKeys(crashed)).toEqual(requestKeys(clean))
  })

  it('the session is byte-identical to the uninterrupted run\'s, ids and timestamps included', () => {
    expect(crashed.session).toBe(clean.session)
    expect(crashed.session).toContain(CRASH_SCRIPT.at(-1)!.text)
  })

  it('streaming stayed live: every model answer streamed its deltas through the hooks as it came', () => {
    const turns = clean.requests.filter(request => !isSummaryRequest(request)).length
    // Two deltas per scripted turn, each logged by the stream:text hook while the call ran.
    expect(clean.log.filter(line => line.kind === 'delta')).toHaveLength(turns * 2)
    expect(crashed.log.filter(line => line.kind === 'delta').length).toBeGreaterThanOrEqual(turns * 2)
  })
})
