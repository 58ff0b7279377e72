/**
 * session-lease: what taking and giving back a session's lease costs a run.
 *
 * Every run on a stored session acquires the session's lease and releases it
 * at the end. This times that pair, in CPU per pair, next to the leanest
 * thing a file-based lease could do in the same directory: write a small
 * file and unlink it (`writeFileSync` + `unlinkSync`). The variants run in
 * rounds, each round taking them in turn, so a busy moment on the machine
 * hits all of them alike; a variant's ratio is the median over the rounds of
 * its CPU over the baseline's in the same round.
 *
 * - file store, new session: the first run of a conversation (no record yet);
 * - file store, same session again: every later run of it (the record of the
 *   run before is there);
 * - file store through a session handle: what a run calls
 *   (`session.acquireLease()` / `releaseLease()`), same session again;
 * - memory store through a session handle.
 */

import type { Session } from '../src/session'
import type { SessionStore } from '../src/session/types'
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFileStore, createMemoryStore, createSession } from '../src/session'
import { measure, median, printTable } from './measure'

export interface SessionLeaseOptions {
  /** Rounds of every variant. Default 30. */
  rounds?: number
  /** Acquire + release pairs per variant in one round. Default 50. */
  pairs?: number
  print?: boolean
}

export interface LeaseVariantResult {
  variant: string
  /** Median CPU µs per acquire + release. */
  cpuUs: number
  /** Median over the rounds of this variant's CPU over the baseline's in the same round. */
  ratio: number
  /** Leases granted (each pair's acquire), to check the benchmark did what it says. */
  granted: number
}

interface Variant {
  name: string
  /** Called once per pair with its index in the whole benchmark; returns whether the lease was granted. */
  pair: (n: number) => Promise<boolean>
}

const OWNER = 'bench-owner'
const TTL_MS = 180_000

export async function sessionLease(options: SessionLeaseOptions = {}): Promise<LeaseVariantResult[]> {
  const rounds = options.rounds ?? 30
  const pairs = options.pairs ?? 50
  const print = options.print ?? true
  const dir = mkdtempSync(join(tmpdir(), 'zidane-bench-lease-'))
  const fileStore = createFileStore({ dir })
  try {
    const variants = await prepareVariants(dir, fileStore, (rounds + 1) * pairs)
    const samples = variants.map(() => [] as number[])
    const granted = variants.map(() => 0)
    // One warm-up round, not counted: the first calls pay for JIT compilation.
    for (const variant of variants) {
      for (let i = 0; i < pairs; i++)
        await variant.pair(i)
    }
    let n = pairs
    for (let round = 0; round < rounds; round++) {
      for (const [index, variant] of variants.entries()) {
        const first = n
        const sample = await measure(async () => {
          for (let i = 0; i < pairs; i++) {
            if (await variant.pair(first + i))
              granted[index]++
          }
        })
        samples[index].push((sample.cpuMs * 1000) / pairs)
      }
      n += pairs
    }
    // Each round's figure over the baseline's of the same round, then the median: the load on the
    // machine drifts between rounds far more than within one.
    const results = variants.map((variant, index) => ({
      variant: variant.name,
      cpuUs: median(samples[index]),
      ratio: median(samples[index].map((us, round) => us / samples[0][round])),
      granted: granted[index],
    }))
    if (print) {
      console.log(`session-lease: CPU per acquire + release, median of ${rounds} rounds of ${pairs} pairs; ratio to the baseline of the same round, median over rounds`)
      printTable(['variant', 'CPU µs per pair', 'over baseline'], results.map(result => [result.variant, result.cpuUs.toFixed(1), `${result.ratio.toFixed(2)}×`]))
    }
    return results
  }
  finally {
    await fileStore.close?.()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function prepareVariants(dir: string, fileStore: SessionStore, total: number): Promise<Variant[]> {
  // The first run of a conversation: a new session for every pair (the warm-up's included).
  const fresh: string[] = []
  for (let i = 0; i < total; i++)
    fresh.push((await fileStore.create({ createdAt: Date.now() })).id)
  const { id: again } = await fileStore.create({ createdAt: Date.now() })
  const fileHandle = await createSession({ store: fileStore })
  const memoryHandle = await createSession({ store: createMemoryStore() })
  const baselinePath = join(dir, 'baseline.lease')
  const record = JSON.stringify({ owner: OWNER, expiresAt: Date.now() + TTL_MS, pid: process.pid, hostname: 'bench-host' })
  return [
    {
      name: 'baseline: writeFileSync + unlinkSync',
      pair: async () => {
        writeFileSync(baselinePath, record)
        unlinkSync(baselinePath)
        return true
      },
    },
    {
      name: 'file store, new session',
      pair: async (n) => {
        const lease = await fileStore.acquireLease!(fresh[n], OWNER, TTL_MS)
        await fileStore.releaseLease!(fresh[n], OWNER)
        return lease.owner === OWNER
      },
    },
    {
      name: 'file store, same session again',
      pair: async () => {
        const lease = await fileStore.acquireLease!(again, OWNER, TTL_MS)
        await fileStore.releaseLease!(again, OWNER)
        return lease.owner === OWNER
      },
    },
    { name: 'file store, session handle', pair: () => handlePair(fileHandle) },
    { name: 'memory store, session handle', pair: () => handlePair(memoryHandle) },
  ]
}

async function handlePair(session: Session): Promise<boolean> {
  const lease = await session.acquireLease({ ttlMs: TTL_MS })
  await session.releaseLease()
  return lease.owner !== ''
}
