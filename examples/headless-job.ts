/**
 * A job without a UI: `runHeadless` from `zidane/chat` runs one prompt with
 * the built-in `plan` chat profile in a scratch project, then destroys the
 * agent and returns the stats, as a CI step or a queue worker would.
 * `resolveChatProfile` gives the session its folders: the 12 KiB grep result
 * lands in `tool-results/<session>/`, and the model sees a preview and the path.
 *
 *   node --import tsx examples/headless-job.ts
 *
 * With ANTHROPIC_API_KEY set, Claude plans the change instead of the script.
 */
import type { FakeModelServer } from 'zidane/testing'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chatProfiles, resolveChatProfile, runHeadless } from 'zidane/chat'
import { createProcessContext } from 'zidane/contexts'
import { anthropic } from 'zidane/providers/anthropic'
import { createMemoryStore, createSession } from 'zidane/session'
import { startFakeModelServer } from 'zidane/testing'

const scratch = mkdtempSync(join(tmpdir(), 'zidane-headless-'))
const project = join(scratch, 'project')
const dataDir = join(scratch, 'data')
mkdirSync(project)
// A project with many call sites of one function, so the search result is large.
writeFileSync(join(project, 'calls.ts'), Array.from({ length: 300 }, (_, i) => `export const v${i} = fetchJson('/item/${i}')`).join('\n'))

let server: FakeModelServer | undefined
if (!process.env.ANTHROPIC_API_KEY) {
  server = await startFakeModelServer({
    script: [
      { text: 'Finding the call sites.', toolCalls: [{ name: 'grep', input: { pattern: 'fetchJson' } }] },
      ({ toolResults }) => ({ text: `Plan: wrap fetchJson once in calls.ts. The search ${toolResults[0].startsWith('<persisted-output>') ? 'was kept on disk; I read its preview' : 'came back inline'}.` }),
    ],
  })
  console.log(`[offline] ANTHROPIC_API_KEY is not set: a scripted model answers at ${server.url}\n`)
}

try {
  const session = await createSession({ store: createMemoryStore() })
  const stats = await runHeadless({
    provider: server ? anthropic({ baseURL: server.url, apiKey: 'offline' }) : anthropic(),
    execution: createProcessContext({ cwd: project }),
    session,
    behavior: { maxTurns: 6 },
    prompt: 'Plan how to add retries to every fetchJson call. Do not change files.',
    run: { profile: resolveChatProfile(chatProfiles.plan, { dataDir, sessionId: session.id }) },
  })
  console.log(stats.text)
  const kept = join(dataDir, 'tool-results', session.id)
  console.log(`\nstop: ${stats.stopReason} · turns: ${stats.turns} · results kept on disk: ${existsSync(kept) ? readdirSync(kept).length : 0}`)
}
finally {
  await server?.close()
  rmSync(scratch, { recursive: true, force: true })
}
