/**
 * The real Restate server for tests and benchmarks: the binary the
 * `@restatedev/restate-server` dev dependency ships, started directly (so the
 * PID we hold is the server's), bound to 127.0.0.1 only, on free ports, with
 * its own temporary data directory and telemetry off. `stop()` kills it by
 * that PID and removes the directory. Free of test-runner imports, so a
 * benchmark can use it too.
 */
import type { ChildProcess } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

export interface RestateServer {
  /** `http://127.0.0.1:<port>` of the admin API. */
  adminUrl: string
  /** `http://127.0.0.1:<port>` of the ingress. */
  ingressUrl: string
  pid: number
  /** Everything the server wrote to stdout and stderr so far. */
  log: () => string
  /** Register (or re-register, with `force`) the deployment serving at `uri`. */
  register: (uri: string) => Promise<void>
  /** POST `body` as JSON to the ingress at `path` (`/<object>/<key>/<handler>`), and parse the answer. */
  call: <T = unknown>(path: string, body?: unknown, options?: { idempotencyKey?: string, signal?: AbortSignal }) => Promise<T>
  /** Send without waiting (`…/send`); resolves with the invocation id. */
  send: (path: string, body?: unknown, options?: { idempotencyKey?: string }) => Promise<string>
  /** Kill the server by its PID (SIGKILL unless `graceful`) and remove its data directory. */
  stop: (options?: { graceful?: boolean }) => Promise<void>
}

export interface RestateServerOptions {
  /** Retry delays after a failed attempt (a worker that died): short in tests, so a restart is picked up at once. */
  retryInitialMs?: number
  retryMaxMs?: number
  /** How long to wait for `/health`. */
  startTimeoutMs?: number
}

/** The server binary inside the platform package of `@restatedev/restate-server`. */
export function restateServerBinary(): string {
  const require = createRequire(import.meta.url)
  const packageJson = require.resolve(`@restatedev/restate-server-${process.platform}-${process.arch}/package.json`)
  return join(dirname(packageJson), 'bin', 'restate-server')
}

/** A port nothing listens on right now (the kernel's pick on 127.0.0.1). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  await new Promise<void>(resolve => server.close(() => resolve()))
  return port
}

/** Attempts at a start whose picked ports another process took between the pick and the bind. */
const START_ATTEMPTS = 4

/**
 * Start a server on three free loopback ports. A port is only known to be free
 * when it is picked; tests running beside this one may bind it before the
 * server does, so a start that fails on "Address in use" picks new ports.
 */
export async function startRestateServer(options: RestateServerOptions = {}): Promise<RestateServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options)
    }
    catch (error) {
      if (attempt >= START_ATTEMPTS || !String((error as Error).message).includes('Address in use'))
        throw error
    }
  }
}

async function startOnce(options: RestateServerOptions): Promise<RestateServer> {
  const [admin, ingress, node] = [await freePort(), await freePort(), await freePort()]
  const dataDir = await mkdtemp(join(tmpdir(), 'zidane-restate-'))
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dataDir,
    RESTATE_DISABLE_TELEMETRY: 'true',
    RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_BIND_ADDRESS: `127.0.0.1:${node}`,
    RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${node}/`,
    RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE: '256 MiB',
    RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: `${options.retryInitialMs ?? 50}ms`,
    RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: `${options.retryMaxMs ?? 250}ms`,
    RESTATE_DEFAULT_RETRY_POLICY__MAX_ATTEMPTS: '1000',
  }
  const child = spawn(restateServerBinary(), ['--no-logo', '--base-dir', dataDir, '--node-name', 'test', '--default-num-partitions', '2'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const collect = (chunk: Buffer) => {
    // Keep the tail only: a long test must not grow this without bound.
    output = (output + chunk.toString('utf8')).slice(-200_000)
  }
  child.stdout!.on('data', collect)
  child.stderr!.on('data', collect)
  // Should the test process end without stop() (a failed hook, a killed worker), the server goes with it.
  const killOnExit = () => {
    if (child.exitCode === null && child.signalCode === null)
      child.kill('SIGKILL')
  }
  process.once('exit', killOnExit)
  const adminUrl = `http://127.0.0.1:${admin}`
  const ingressUrl = `http://127.0.0.1:${ingress}`
  let stopped = false

  const stop = async ({ graceful = false } = {}) => {
    if (!stopped) {
      stopped = true
      process.removeListener('exit', killOnExit)
      await killAndWait(child, graceful ? 'SIGTERM' : 'SIGKILL', 10_000)
    }
    await rm(dataDir, { recursive: true, force: true })
  }

  try {
    await waitForHealth(child, `${adminUrl}/health`, options.startTimeoutMs ?? 20_000, () => output)
    await waitForHealth(child, `${ingressUrl}/restate/health`, options.startTimeoutMs ?? 20_000, () => output)
  }
  catch (error) {
    await stop()
    throw error
  }

  return {
    adminUrl,
    ingressUrl,
    pid: child.pid!,
    log: () => output,
    async register(uri) {
      const response = await fetch(`${adminUrl}/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri, force: true }),
        signal: AbortSignal.timeout(15_000),
      })
      if (!response.ok)
        throw new Error(`registering ${uri} failed: ${response.status} ${await response.text()}`)
    },
    async call(path, body, callOptions = {}) {
      const response = await fetch(`${ingressUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...idempotency(callOptions.idempotencyKey) },
        body: JSON.stringify(body ?? null),
        signal: callOptions.signal,
      })
      const text = await response.text()
      if (!response.ok)
        throw new IngressError(response.status, text)
      return (text ? JSON.parse(text) : undefined) as any
    },
    async send(path, body, callOptions = {}) {
      const response = await fetch(`${ingressUrl}${path}/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...idempotency(callOptions.idempotencyKey) },
        body: JSON.stringify(body ?? null),
        signal: AbortSignal.timeout(15_000),
      })
      const text = await response.text()
      if (!response.ok)
        throw new IngressError(response.status, text)
      return (JSON.parse(text) as { invocationId: string }).invocationId
    },
    stop,
  }
}

/** A non-2xx answer of the ingress (a terminal error of the handler comes back as 500 with its message). */
export class IngressError extends Error {
  constructor(readonly status: number, readonly body: string) {
    super(`ingress answered ${status}: ${body}`)
    this.name = 'IngressError'
  }
}

function idempotency(key: string | undefined): Record<string, string> {
  return key ? { 'idempotency-key': key } : {}
}

async function waitForHealth(child: ChildProcess, url: string, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`restate-server exited (${child.exitCode ?? child.signalCode}) before ${url} was healthy:\n${log()}`)
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) })
      if (response.ok)
        return
    }
    catch {
      // Not listening yet.
    }
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  throw new Error(`restate-server was not healthy at ${url} within ${timeoutMs} ms:\n${log()}`)
}

/** Signal a child by its PID and wait (bounded) for it to exit; SIGKILL if it outlives the wait. */
export async function killAndWait(child: ChildProcess, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null)
    return
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  process.kill(child.pid!, signal)
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null)
      process.kill(child.pid!, 'SIGKILL')
  }, timeoutMs)
  await exited
  clearTimeout(timer)
}
