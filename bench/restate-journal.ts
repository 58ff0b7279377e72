/**
 * restate-journal: does the journal grow with new content only?
 *
 * A 100-call run (one tool call per model call; each answer ~1 KB of text,
 * each tool output ~2 KB) on a session that already holds a large
 * conversation (~1 MB of earlier turns), through restateAgent on the real
 * server. Prints the bytes Restate journaled for the invocation next to the
 * bytes of the turns the run added to the session transcript (target: at
 * most 1.2×), and next to the whole transcript. A journal that held each
 * request (the conversation so far) would be about 50× the transcript here.
 *
 *   node --import tsx bench/restate-journal.ts [calls]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { anthropic } from '../src/providers/anthropic'
import { createFileStore } from '../src/session/stores'
import { journalBytes, longRunModel, noteTool, startRestateBench } from './restate-setup'

const calls = Number(process.argv[2] ?? 100)
const dir = mkdtempSync(join(tmpdir(), 'zidane-bench-journal-'))
const store = createFileStore({ dir })
const sessionId = 'large'

// The large conversation the run continues: 400 earlier turns of ~2.5 KB.
await store.create({ id: sessionId, createdAt: Date.now() })
const earlier = Array.from({ length: 400 }, (_, i) => ({
  id: `earlier-${i}`,
  role: (i % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
  content: [{ type: 'text' as const, text: `Earlier message ${i}: ${'context '.repeat(320)}` }],
  createdAt: 1_764_633_600_000 + i,
}))
await store.appendTurns(sessionId, earlier)
const before = await store.load(sessionId)
const beforeBytes = Buffer.byteLength(JSON.stringify(before!.turns))

const bench = await startRestateBench({
  store,
  answer: longRunModel(calls, 1000),
  agent: model => ({
    provider: anthropic({ baseURL: model.url, apiKey: 'bench', defaultModel: 'claude-test' }),
    tools: { note: noteTool(2000) },
    behavior: { maxTurns: calls + 5 },
  }),
})
try {
  const started = Date.now()
  const stats = await bench.server.call<{ stopReason: string, turns: number }>(`/zidane-agent/${sessionId}/run`, { prompt: 'Write the notes.' })
  const elapsed = Date.now() - started
  const after = await store.load(sessionId)
  const wholeBytes = Buffer.byteLength(JSON.stringify(after!.turns))
  const addedBytes = Buffer.byteLength(JSON.stringify(after!.turns.slice(before!.turns.length)))
  const runsBytes = Buffer.byteLength(JSON.stringify(after!.runs))
  const journal = await journalBytes(bench.server, sessionId)
  console.log(`restate-journal: ${calls} model calls + ${calls} tool calls on a ${(beforeBytes / 1e6).toFixed(2)} MB conversation (${elapsed} ms, stop: ${stats.stopReason}, ${bench.model.requests.length} model requests)`)
  console.log(`  journal            ${journal.total} bytes in ${journal.entries} entries`)
  console.log(`  added transcript   ${addedBytes} bytes (the turns this run added)   journal / added   = ${(journal.total / addedBytes).toFixed(2)}×   (target ≤ 1.2×)`)
  console.log(`  whole transcript   ${wholeBytes} bytes                               journal / whole   = ${(journal.total / wholeBytes).toFixed(2)}×`)
  console.log(`  run records        ${runsBytes} bytes (not in the journal: written through journaled steps)`)
  console.log(`  by entry type      ${Object.entries(journal.byType).map(([type, bytes]) => `${type} ${bytes}`).join(', ')}`)
}
finally {
  await bench.close()
  rmSync(dir, { recursive: true, force: true })
}
