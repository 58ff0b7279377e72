/**
 * restate-overhead: what does running on Restate add to each turn?
 *
 * The same 40-call run (one tool call per model call, small payloads) in
 * rounds: once as a plain in-process run, once through restateAgent on the
 * real server (every model result, tool result, clock read and session
 * write journaled, each a round trip to the server). Prints the median wall
 * time per turn of each and their ratio. The fake model answers at once, so
 * the ratio is the worst case: against a real model's seconds per turn the
 * added milliseconds vanish.
 *
 *   node --import tsx bench/restate-overhead.ts [rounds] [calls]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from '../src/agent/create-agent'
import { anthropic } from '../src/providers/anthropic'
import { createSession } from '../src/session/session'
import { createFileStore } from '../src/session/stores'
import { median } from './measure'
import { longRunModel, noteTool, startRestateBench } from './restate-setup'

const rounds = Number(process.argv[2] ?? 5)
const calls = Number(process.argv[3] ?? 40)
const dir = mkdtempSync(join(tmpdir(), 'zidane-bench-overhead-'))
const store = createFileStore({ dir })
function options(url: string) {
  return {
    provider: anthropic({ baseURL: url, apiKey: 'bench', defaultModel: 'claude-test' }),
    tools: { note: noteTool(200) },
    behavior: { maxTurns: calls + 5 },
  }
}
const bench = await startRestateBench({ store, answer: longRunModel(calls, 200), agent: model => options(model.url) })
const plain: number[] = []
const durable: number[] = []
try {
  for (let round = 0; round < rounds; round++) {
    let started = performance.now()
    const session = await createSession({ id: `plain-${round}`, store })
    const stats = await createAgent({ ...options(bench.model.url), session }).run({ prompt: 'Write the notes.' })
    plain.push((performance.now() - started) / stats.turns)

    started = performance.now()
    const durableStats = await bench.server.call<{ turns: number }>(`/zidane-agent/durable-${round}/run`, { prompt: 'Write the notes.' })
    durable.push((performance.now() - started) / durableStats.turns)
  }
  const plainMs = median(plain)
  const durableMs = median(durable)
  console.log(`restate-overhead: ${rounds} rounds of a ${calls}-call run (file session store both ways)`)
  console.log(`  plain run          ${plainMs.toFixed(2)} ms per turn`)
  console.log(`  restateAgent       ${durableMs.toFixed(2)} ms per turn   ratio ${(durableMs / plainMs).toFixed(2)}×   (+${(durableMs - plainMs).toFixed(2)} ms per turn)`)
}
finally {
  await bench.close()
  rmSync(dir, { recursive: true, force: true })
}
