/**
 * Child process for the read-state restart test: an agent on a file-backed
 * session reads a file, then hangs in a tool until the parent kills it with
 * SIGKILL. Arguments: <store dir> <session id> <workspace dir>. Prints
 * `read-done` once the read's turn is stored and the run waits in `wait`.
 */
import { createAgent } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'
import { readFile } from '../../src/tools'

const [dir, sessionId, workspace] = process.argv.slice(2)
const session = await loadSession(sessionId, { store: createFileStore({ dir }) })

const wait = {
  spec: { name: 'wait', description: 'Wait for the parent', inputSchema: { type: 'object' } },
  execute: () => {
    process.stdout.write('read-done\n')
    // Never answers: the parent kills this process here.
    return new Promise<string>(() => {})
  },
}

const provider = scriptedProvider([
  { toolCalls: [{ name: 'read_file', input: { path: 'config.txt' }, id: 'read-1' }] },
  { toolCalls: [{ name: 'wait', input: {}, id: 'wait-1' }] },
])
const agent = createAgent({
  provider,
  tools: { read_file: readFile, wait },
  execution: createProcessContext({ cwd: workspace }),
  session,
  behavior: { requireReadBeforeEdit: true },
})
await agent.run({ prompt: 'Read config.txt, then wait' })
