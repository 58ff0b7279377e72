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
 *   node --import tsx bench/loop-in-process.ts [anthropic|openai-chat|openai-responses] [calls per turn] [defaults|policies|telemetry] [file|none]
 *
 * Run this way it measures the built code, as loop-overhead does
 * (`BENCH_CODE=source` for the sources through tsx).
 */

import type { LoopCode } from './built-code'
import type { LoopConfig, Persistence } from './loop-runners'
import type { BenchProvider } from './loop-script'
import type { RecordedResponse } from './recorded-answers'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { benchLoopCode } from './built-code'
import { floorRunner, zidaneRunner } from './loop-runners'
import { median } from './measure'
import { recordingFetch, withRecordedAnswers } from './recorded-answers'
import { startServerProcess } from './server-process'

export interface LoopInProcessOptions {
  provider?: BenchProvider
  callsPerTurn?: number
  config?: LoopConfig
  /** Every turn persisted on both sides (`file`, the default) or nothing persisted (`none`), as in loop-overhead. */
  persistence?: Persistence
  /** Turns per run (default 50). */
  turns?: number
  /** Warm-up runs of each loop (default 40). */
  warmRuns?: number
  /** Measured runs of each loop (default 100). */
  runs?: number
  print?: boolean
  /** The code both loops run (`built-code.ts`); the sources as loaded when absent. */
  code?: LoopCode
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
  const persistence = options.persistence ?? 'file'
  const server = await startServerProcess(provider, turns, callsPerTurn)
  const dir = mkdtempSync(join(tmpdir(), 'zidane-in-process-'))
  const shared = { baseURL: server.url, maxTurns: turns + 10, ...(options.code ? { code: options.code } : {}) }
  try {
    const recorded = new Map<number, RecordedResponse>()
    let serverRequests = 0
    const recordInto = recordingFetch(recorded)
    const recording: typeof globalThis.fetch = async (input, init) => {
      serverRequests += 1
      return recordInto(input, init)
    }
    const first = await floorRunner(provider, { ...shared, dir: join(dir, 'record'), fetch: recording })()
    if (first.turns !== turns)
      throw new Error(`loop-in-process: the recording run took ${first.turns} turns, not ${turns}`)
    const recordingRequests = serverRequests
    // After the recording run: its first request made undici set the default dispatcher, which is given back.
    return await withRecordedAnswers(recorded, async () => {
      const floor = floorRunner(provider, { ...shared, persistence, dir: join(dir, 'floor') })
      const zidane = zidaneRunner(provider, config, callsPerTurn > 1, { ...shared, persistence, dir: join(dir, 'zidane') })
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
        console.log(`loop-in-process: ${provider}, ${callsPerTurn} call(s) per turn, ${config}, ${persistence === 'file' ? 'every turn persisted' : 'nothing persisted'}, ${runs} runs of ${turns} turns after ${warmRuns} (no sockets); ${options.code?.note ?? 'the sources as loaded'}`)
        console.log(`  floor ${result.floor.toFixed(1)} µs CPU per turn, zidane ${result.zidane.toFixed(1)}: ${result.ratio.toFixed(3)}×`)
      }
      return result
    })
  }
  finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const provider = process.argv[2] === 'openai-chat' || process.argv[2] === 'openai-responses' ? process.argv[2] : 'anthropic'
  const config = process.argv[4] === 'policies' || process.argv[4] === 'telemetry' ? process.argv[4] : 'defaults'
  const persistence = process.argv[5] === 'none' ? 'none' : 'file'
  await loopInProcess({ provider, callsPerTurn: Number(process.argv[3] ?? 1), config, persistence, code: await benchLoopCode() })
}
