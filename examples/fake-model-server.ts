/**
 * The real Anthropic provider, offline: `startFakeModelServer` from
 * `zidane/testing` plays a scripted model on 127.0.0.1 over the Messages API's
 * own streaming wire, and `anthropic({ baseURL })` talks to it through the
 * official client, exactly as it would talk to the real API.
 *
 *   node --import tsx examples/fake-model-server.ts
 *
 * With ANTHROPIC_API_KEY set, the same program talks to Claude instead.
 * Either way the tool really runs: it lists this folder's files.
 */
import type { FakeModelServer } from 'zidane/testing'
import { readdir } from 'node:fs/promises'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { startFakeModelServer } from 'zidane/testing'
import { z } from 'zod'

const listFiles = tool({
  name: 'list_files',
  description: 'List the files of a folder, relative to the examples folder.',
  input: z.object({ folder: z.string().describe('A folder, e.g. "."') }),
  isConcurrencySafe: true,
  async execute({ folder }) {
    const names = await readdir(new URL(folder, import.meta.url))
    return names.filter(name => name.endsWith('.ts')).sort().join('\n')
  },
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
let server: FakeModelServer | undefined
if (!live) {
  server = await startFakeModelServer({
    script: [
      { text: 'I will list the folder.', toolCalls: [{ name: 'list_files', input: { folder: '.' } }] },
      // The second answer is computed from what the tool really returned.
      ({ toolResults }) => ({ text: `There are ${(toolResults[0] ?? '').split('\n').filter(Boolean).length} example programs here.` }),
    ],
  })
  console.log(`[offline] ANTHROPIC_API_KEY is not set: a scripted model answers at ${server.url}\n`)
}

try {
  const agent = createAgent({
    provider: server ? anthropic({ baseURL: server.url, apiKey: 'offline' }) : anthropic(),
    tools: { listFiles },
    system: 'Answer with your tools. Be brief.',
    behavior: { maxTurns: 4 },
  })
  agent.hooks.hook('stream:text', ({ delta }) => void process.stdout.write(delta))
  agent.hooks.hook('tool:after', ({ name, result }) => console.log(`\n  -> ${name} returned ${String(result).split('\n').length} lines`))

  const stats = await agent.run({ prompt: 'How many example programs are in this folder?' })
  console.log(`\n\nstop: ${stats.stopReason} · turns: ${stats.turns} · requests the server saw: ${server?.requests.length ?? 'n/a (live)'}`)
}
finally {
  await server?.close()
}
