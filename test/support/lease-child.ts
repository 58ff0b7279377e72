/**
 * Child process for the two-writer tests: runs a tool-calling agent on a
 * stored session once the parent says `go`, and prints how its run ended as
 * one JSON line. Arguments: <file|sqlite> <store path> <session id> <tag> <turns> <leaseRenewMs>.
 * It prints `stored <n>` each time the run stores turns, so a parent can
 * kill it mid-run.
 */
import type { SessionStore } from '../../src/session/types'
import { createInterface } from 'node:readline'
import { createAgent } from '../../src'
import { SessionLeaseError } from '../../src/errors'
import { loadSession } from '../../src/session'
import { createSqliteStore } from '../../src/session/sqlite'
import { createFileStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'

const [kind, path, sessionId, tag, turnCount, renewMs] = process.argv.slice(2)
const store: SessionStore = kind === 'sqlite' ? createSqliteStore({ path }) : createFileStore({ dir: path })
const session = await loadSession(sessionId, { store })

const work = {
  spec: { name: 'work', description: 'Do a unit of work', inputSchema: { type: 'object', properties: { step: { type: 'number' } } } },
  execute: async ({ step }: { step: number }) => {
    await new Promise(resolve => setTimeout(resolve, 40))
    return `${tag} worked ${step}`
  },
}
const turns = Array.from({ length: Number(turnCount) }, (_, i) => ({ text: `${tag} turn ${i}`, toolCalls: [{ name: 'work', input: { step: i } }] }))
const agent = createAgent({ provider: scriptedProvider([...turns, { text: `${tag} done` }]), tools: { work }, session })

process.stdout.write('ready\n')
const lines = createInterface({ input: process.stdin })
for await (const line of lines) {
  if (line === 'go')
    break
}
lines.close()
let stored = 0
try {
  const stats = await agent.run({
    prompt: `${tag} prompt`,
    leaseRenewMs: Number(renewMs),
    hooks: { 'session:turns': () => void process.stdout.write(`stored ${++stored}\n`) },
  })
  process.stdout.write(`${JSON.stringify({ outcome: 'completed', text: stats.text })}\n`)
}
catch (error) {
  const lease = error instanceof SessionLeaseError ? { reason: error.reason, holder: error.holder } : undefined
  process.stdout.write(`${JSON.stringify({ outcome: 'failed', name: (error as Error).name, message: (error as Error).message, lease })}\n`)
}
await store.close?.()
