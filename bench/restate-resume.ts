/**
 * restate-resume: how soon does a run continue after its worker dies?
 *
 * A worker process serving restateAgent runs the crash test's script and is
 * killed with SIGKILL right after its sixth model call was journaled. A new
 * worker is started at once. Printed: the time from the new worker's spawn
 * to the first new model request (target under 1 s), split into the
 * process start (spawn to listening) and the replay (listening to the
 * request), and the whole over the process start alone (what any restart
 * costs, durable or not). The server retries a failed attempt after 50 ms,
 * doubling up to 250 ms (the test harness's setting); Restate's default
 * starts at 500 ms, which a production cluster may lower the same way.
 *
 *   node --import tsx bench/restate-resume.ts [trials]
 */
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundleChildScript } from '../test/support/child-bundle'
import { startFakeAnthropic } from '../test/support/fake-anthropic'
import { answer } from '../test/support/restate-crash-script'
import { freePort, killAndWait, startRestateServer } from '../test/support/restate-server'
import { median } from './measure'

const trials = Number(process.argv[2] ?? 3)
const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'zidane-bench-resume-'))
symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
const worker = await bundleChildScript('restate-crash-child', dir, ['@restatedev/restate-sdk'])

const server = await startRestateServer()
const arrivals: number[] = []
const model = await startFakeAnthropic({
  fallback: (request) => {
    arrivals.push(performance.now())
    return answer(request)
  },
})

/** Start a worker; resolves when it listens, with its spawn and listen times. */
function start(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess, spawnedAt: number, listeningAt: number }> {
  const spawnedAt = performance.now()
  const child = spawn(process.execPath, [worker], { env, cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready'))
        resolve({ child, spawnedAt, listeningAt: performance.now() })
    })
    child.once('exit', code => code !== null && reject(new Error(`worker exited with ${code}`)))
  })
}

const resumes: { total: number, boot: number, replay: number }[] = []
try {
  for (let trial = 0; trial < trials; trial++) {
    const port = await freePort()
    const storeDir = join(dir, `store-${trial}`)
    mkdirSync(storeDir)
    const env = { PATH: process.env.PATH, PORT: String(port), STORE_DIR: storeDir, MODEL_URL: model.url, LOG_FILE: join(dir, `log-${trial}`), KILL_PLAN: JSON.stringify([{ after: '^model:turn:', nth: 6 }]) }
    const first = await start(env)
    const died = new Promise<void>(resolve => first.child.once('exit', () => resolve()))
    await server.register(`http://127.0.0.1:${port}`)
    const done = server.call(`/zidane-agent/resume-${trial}/run`, { prompt: 'Process orders A and B.' })
    await died
    const before = arrivals.length
    const second = await start(env)
    const finished = await done
    const firstNew = arrivals[before]
    resumes.push({ total: firstNew - second.spawnedAt, boot: second.listeningAt - second.spawnedAt, replay: firstNew - second.listeningAt })
    await killAndWait(second.child, 'SIGKILL', 5_000)
    if ((finished as { stopReason?: string }).stopReason !== 'completed')
      throw new Error(`trial ${trial} ended with ${JSON.stringify(finished)}`)
  }
  const total = median(resumes.map(r => r.total))
  const boot = median(resumes.map(r => r.boot))
  console.log(`restate-resume: ${trials} trials, worker killed after its 6th journaled model call`)
  console.log(`  spawn → first new model request   ${total.toFixed(0)} ms   (target < 1000 ms)`)
  console.log(`    of which process start         ${boot.toFixed(0)} ms`)
  console.log(`    of which retry + replay        ${median(resumes.map(r => r.replay)).toFixed(0)} ms`)
  console.log(`  resume / plain process start      ${(total / boot).toFixed(2)}×`)
}
finally {
  await model.close()
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
