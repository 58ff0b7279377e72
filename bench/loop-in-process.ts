/**
 * loop-in-process: the loop-overhead comparison with the sockets taken out.
 *
 * The fake server (a child process, as in loop-overhead) answers one floor
 * run; each answer is recorded under its turn (how many assistant messages
 * the request carried). Then a dispatcher that answers every request from
 * those recordings is set as undici's global dispatcher, the one Node's
 * `fetch` uses, and the floor and zidane run alternately as in
 * loop-overhead. Both go through the real `fetch` path (the `Request`, the
 * request body streamed out, the response head, then the body on a later
 * turn of the event loop) and through their SDK clients; only the loopback
 * socket and the server are gone, and with them part of the noise. The ratio
 * it prints is the same kind of figure as loop-overhead's; it is a tool for
 * judging a change against the code before it (several runs of each,
 * alternated), not the benchmark's figure.
 *
 *   node --import tsx bench/loop-in-process.ts [anthropic|openai-chat] [calls per turn]
 */

import type { LoopConfig } from './loop-runners'
import type { BenchProvider } from './loop-script'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { floorRunner, zidaneRunner } from './loop-runners'
import { median } from './measure'
import { startServerProcess } from './server-process'

/** Where Node's `fetch` looks for the dispatcher `setGlobalDispatcher` sets (the same key in every undici since 5). */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')
/** One assistant message per turn already answered: a request's turn. */
const ASSISTANT_ROLE = /"role":"assistant"/g
/** Where one server-sent event ends: each recorded body is replayed as the server wrote it, an event per chunk. */
const AFTER_EVENT = /(?<=\n\n)/

/** A response as the server sent it. */
interface RecordedResponse {
  status: number
  /** Header names and values, alternating, as undici hands them to its handlers. */
  rawHeaders: Buffer[]
  chunks: Buffer[]
}

export interface LoopInProcessOptions {
  provider?: BenchProvider
  callsPerTurn?: number
  config?: LoopConfig
  /** Turns per run (default 50). */
  turns?: number
  /** Warm-up runs of each loop (default 40). */
  warmRuns?: number
  /** Measured runs of each loop (default 100). */
  runs?: number
  print?: boolean
}

export interface LoopInProcessResult {
  /** Median CPU µs per turn. */
  floor: number
  zidane: number
  ratio: number
  /** Turns each loop ran in every run (they must agree). */
  turns: number
  /** Requests the server saw while the loops were measured: 0, since the dispatcher answered them all. */
  serverRequestsWhileMeasured: number
}

export async function loopInProcess(options: LoopInProcessOptions = {}): Promise<LoopInProcessResult> {
  const provider = options.provider ?? 'anthropic'
  const callsPerTurn = options.callsPerTurn ?? 1
  const config = options.config ?? 'defaults'
  const turns = options.turns ?? 50
  const server = await startServerProcess(provider, turns, callsPerTurn)
  const dir = mkdtempSync(join(tmpdir(), 'zidane-in-process-'))
  const shared = { baseURL: server.url, maxTurns: turns + 10 }
  const slot = globalThis as Record<symbol, unknown>
  // Read after the recording run's first request: undici sets its default dispatcher on first use.
  let previous: unknown
  let replaced = false
  try {
    const recorded = new Map<number, RecordedResponse>()
    let serverRequests = 0
    const recording: typeof globalThis.fetch = async (input, init) => {
      serverRequests += 1
      const response = await globalThis.fetch(input, init)
      const text = await response.text()
      recorded.set(turnOf(typeof init?.body === 'string' ? init.body : ''), {
        status: response.status,
        rawHeaders: [...response.headers].flatMap(([name, value]) => [Buffer.from(name), Buffer.from(value)]),
        chunks: text.split(AFTER_EVENT).map(part => Buffer.from(part)),
      })
      return new Response(text, { status: response.status, headers: response.headers })
    }
    const first = await floorRunner(provider, { ...shared, dir: join(dir, 'record'), fetch: recording })()
    if (first.turns !== turns)
      throw new Error(`loop-in-process: the recording run took ${first.turns} turns, not ${turns}`)
    const recordingRequests = serverRequests
    previous = slot[GLOBAL_DISPATCHER]
    slot[GLOBAL_DISPATCHER] = recordedDispatcher(recorded)
    replaced = true

    const floor = floorRunner(provider, { ...shared, dir: join(dir, 'floor') })
    const zidane = zidaneRunner(provider, config, callsPerTurn > 1, { ...shared, dir: join(dir, 'zidane') })
    const loops = [
      { name: 'floor', run: floor, cpu: [] as number[] },
      { name: 'zidane', run: zidane, cpu: [] as number[] },
    ]
    const warmRuns = options.warmRuns ?? 40
    const runs = options.runs ?? 100
    for (let round = 0; round < warmRuns + runs; round++) {
      // Alternated, each loop first in every other round, as in loop-overhead.
      for (const loop of round % 2 === 0 ? loops : [...loops].reverse()) {
        const before = process.cpuUsage()
        const done = await loop.run()
        const used = process.cpuUsage(before)
        if (done.turns !== turns)
          throw new Error(`loop-in-process: ${loop.name} took ${done.turns} turns, not ${turns}`)
        if (round >= warmRuns)
          loop.cpu.push((used.user + used.system) / done.turns)
      }
    }
    const result: LoopInProcessResult = {
      floor: median(loops[0].cpu),
      zidane: median(loops[1].cpu),
      ratio: median(loops[1].cpu) / median(loops[0].cpu),
      turns,
      serverRequestsWhileMeasured: serverRequests - recordingRequests,
    }
    if (options.print ?? true) {
      console.log(`loop-in-process: ${provider}, ${callsPerTurn} call(s) per turn, ${config}, ${runs} runs of ${turns} turns after ${warmRuns} (no sockets)`)
      console.log(`  floor ${result.floor.toFixed(1)} µs CPU per turn, zidane ${result.zidane.toFixed(1)}: ${result.ratio.toFixed(3)}×`)
    }
    return result
  }
  finally {
    if (replaced) {
      if (previous === undefined)
        delete slot[GLOBAL_DISPATCHER]
      else
        slot[GLOBAL_DISPATCHER] = previous
    }
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

function turnOf(body: string): number {
  return body.match(ASSISTANT_ROLE)?.length ?? 0
}

/** The part of undici's dispatch handler this dispatcher calls. */
interface DispatchHandler {
  onConnect?: (abort: (reason?: unknown) => void) => void
  onHeaders?: (status: number, rawHeaders: Buffer[], resume: () => void, statusText: string) => boolean
  onData?: (chunk: Buffer) => boolean
  onComplete?: (trailers: Buffer[]) => void
  onError?: (error: unknown) => void
}

/**
 * A dispatcher answering each request with the recording of its turn: the
 * head once the request body has been read, the body's events on the next
 * turn of the event loop, as a server's answer arrives after its head.
 */
function recordedDispatcher(recorded: ReadonlyMap<number, RecordedResponse>): object {
  const dispatcher = {
    dispatch(request: { body?: unknown }, handler: DispatchHandler): boolean {
      let aborted = false
      handler.onConnect?.((reason) => {
        if (aborted)
          return
        aborted = true
        handler.onError?.(reason ?? new Error('aborted'))
      })
      void answer(request.body, handler, () => aborted).catch(error => handler.onError?.(error))
      return true
    },
    async close(): Promise<void> {},
    async destroy(): Promise<void> {},
    // undici may subscribe to a dispatcher's connection events; this one has none.
    on: () => dispatcher,
    once: () => dispatcher,
    off: () => dispatcher,
  }

  async function answer(body: unknown, handler: DispatchHandler, aborted: () => boolean): Promise<void> {
    const text = await bodyText(body)
    const response = recorded.get(turnOf(text))
    if (!response)
      throw new Error(`loop-in-process: no recorded answer for turn ${turnOf(text)}`)
    if (aborted())
      return
    handler.onHeaders?.(response.status, response.rawHeaders, () => {}, 'OK')
    setImmediate(() => {
      if (aborted())
        return
      for (const chunk of response.chunks) handler.onData?.(chunk)
      handler.onComplete?.([])
    })
  }

  return dispatcher
}

/** A request body as `fetch` hands it to the dispatcher: a string, bytes, or an async iterable of either. */
async function bodyText(body: unknown): Promise<string> {
  if (typeof body === 'string')
    return body
  if (body instanceof Uint8Array)
    return Buffer.from(body).toString('utf8')
  if (body && typeof body === 'object' && Symbol.asyncIterator in body) {
    const parts: Buffer[] = []
    for await (const part of body as AsyncIterable<string | Uint8Array>) parts.push(typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))
    return Buffer.concat(parts).toString('utf8')
  }
  return ''
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const provider = process.argv[2] === 'openai-chat' ? 'openai-chat' : 'anthropic'
  await loopInProcess({ provider, callsPerTurn: Number(process.argv[3] ?? 1) })
}
