/**
 * session-persist: what persisting one more turn costs as a session grows.
 *
 * For each store (file, file with fsync, SQLite), three sessions are grown
 * to 10, 1,000 and 10,000 turns of about 2 KB each (an assistant turn with
 * thinking, text, a tool call and usage), in batches, which take the same
 * append path. Then single appends are timed (wall time), one to each session
 * in turn for SAMPLES rounds, so a busy moment on the machine hits every mark
 * alike; each mark's figure is the median of its samples. An append-only store costs
 * the same at every mark, so the last/first ratio should stay near 1×
 * (target ≤ 1.5×); a store that rewrote the session would grow linearly.
 */

import type { SessionTurn } from '../src/core/content'
import type { SessionStore } from '../src/session/types'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSqliteStore } from '../src/session/sqlite'
import { createFileStore } from '../src/session/stores'
import { measure, median, printTable } from './measure'

const MARKS = [10, 1_000, 10_000] as const
const SAMPLES = 101
const FILL_BATCH = 100
const WARMUP_APPENDS = 300
const TARGET_RATIO = 1.5

export interface PersistResult {
  store: string
  /** Median ms to persist one turn at each mark, in MARKS order. */
  msAt: number[]
  /** msAt's last / first. */
  ratio: number
  /** ms to load the whole session once it is past the last mark. */
  loadMs: number
}

const STORES: readonly { name: string, open: (dir: string) => SessionStore }[] = [
  { name: 'file (JSONL, buffered)', open: dir => createFileStore({ dir: join(dir, 'logs') }) },
  { name: 'file (JSONL, fsync)', open: dir => createFileStore({ dir: join(dir, 'logs'), durability: 'fsync' }) },
  { name: 'sqlite (WAL, synchronous=NORMAL)', open: dir => createSqliteStore({ path: join(dir, 'sessions.db') }) },
]

export async function sessionPersist(): Promise<PersistResult[]> {
  const turnBytes = Buffer.byteLength(JSON.stringify(benchTurn(0)))
  console.log(`session-persist: one ~${(turnBytes / 1024).toFixed(1)} KB turn appended at turn ${MARKS.map(mark => mark.toLocaleString('en-US')).join(', ')}; median of ${SAMPLES} single appends each, interleaved`)
  const results: PersistResult[] = []
  for (const { name, open } of STORES) {
    const dir = mkdtempSync(join(tmpdir(), 'zidane-bench-persist-'))
    const store = open(dir)
    try {
      results.push(await runStore(name, store))
    }
    finally {
      await store.close?.()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  printTable(
    ['store', ...MARKS.map(mark => `turn ${mark.toLocaleString('en-US')} (ms)`), 'last/first', `load ${MARKS.at(-1)!.toLocaleString('en-US')} turns (ms)`],
    results.map(result => [result.store, ...result.msAt.map(ms => ms.toFixed(3)), `${result.ratio.toFixed(2)}×`, result.loadMs.toFixed(1)]),
  )
  const verdict = results.every(result => result.ratio <= TARGET_RATIO) ? 'within' : 'ABOVE'
  console.log(`\nsession-persist last/first: ${results.map(result => `${result.store} ${result.ratio.toFixed(2)}×`).join(', ')} (${verdict} the ${TARGET_RATIO}× target)`)
  return results
}

async function runStore(name: string, store: SessionStore): Promise<PersistResult> {
  // Warm the code paths (JIT, file cache, statement cache) on a throwaway session.
  const { id: warmup } = await store.create({ createdAt: Date.now() })
  for (let i = 0; i < WARMUP_APPENDS; i++)
    await store.appendTurns(warmup, [benchTurn(i)])
  await store.delete(warmup)

  // One session per mark, grown to it in batches.
  const sessions: { id: string, count: number, samples: number[] }[] = []
  for (const mark of MARKS) {
    const { id } = await store.create({ createdAt: Date.now() })
    for (let count = 0; count < mark; count += FILL_BATCH)
      await store.appendTurns(id, Array.from({ length: Math.min(FILL_BATCH, mark - count) }, (_, i) => benchTurn(count + i)))
    sessions.push({ id, count: mark, samples: [] })
  }
  // Then single appends, taking the sessions in turn (starting with a different one each
  // round), so a busy moment on the machine lands on every mark alike.
  for (let round = 0; round < SAMPLES; round++) {
    for (let k = 0; k < sessions.length; k++) {
      const session = sessions[(round + k) % sessions.length]
      const turn = benchTurn(session.count++)
      session.samples.push((await measure(() => store.appendTurns(session.id, [turn]))).wallMs)
    }
  }
  const msAt = sessions.map(session => median(session.samples))
  const loadMs = (await measure(() => store.load(sessions.at(-1)!.id))).wallMs
  return { store: name, msAt, ratio: msAt.at(-1)! / msAt[0], loadMs }
}

const THINKING = 'The failing assertion compares local hours, but the fixture date sits on the DST boundary, so the helper must add calendar days in UTC. '
const ANSWER = 'I have read the helper and the test. The fix keeps the public signature and only changes how the next day is computed. '

/** An assistant turn of about 2 KB, different for every `n`. */
function benchTurn(n: number): SessionTurn {
  return {
    id: `turn-${n.toString().padStart(6, '0')}-4c57-9a43-8f1d2e3a4b5c`,
    role: 'assistant',
    runId: 'run_1',
    createdAt: 1_764_460_800_000 + n * 1000,
    content: [
      { type: 'thinking', text: `${THINKING.repeat(6)}(step ${n})`, signature: 'ErUBCkYIBRgCIkD8w1tq3fZ0c2lnbmF0dXJl', signatureProducer: 'anthropic' },
      { type: 'text', text: `${ANSWER.repeat(4)}(turn ${n})` },
      { type: 'tool_call', id: `toolu_${n}`, name: 'edit', input: { path: `src/module-${n % 50}.ts`, old_string: 'date.getTime() + days * 86_400_000', new_string: 'Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + days)' } },
    ],
    usage: { input: 2000 + n, output: 140, cacheRead: 1900 + n, cacheCreation: 100, modelId: 'claude-sonnet-5-5', provider: 'anthropic', finishReason: 'tool-calls' },
  }
}
