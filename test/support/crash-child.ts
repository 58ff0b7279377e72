/**
 * Child process for the crash test: runs a tool-calling agent on a file-backed
 * session until it is killed. Arguments: <store dir> <session id>.
 */
import { createAgent } from '../../src'
import { loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'

const [dir, sessionId] = process.argv.slice(2)
const session = await loadSession(sessionId, { store: createFileStore({ dir }) })

const work = {
  spec: { name: 'work', description: 'Do a unit of work', inputSchema: { type: 'object', properties: { step: { type: 'number' } } } },
  isConcurrencySafe: true,
  execute: async ({ step }: { step: number }) => {
    await new Promise(resolve => setTimeout(resolve, 1 + (step % 3)))
    return `worked ${step}`
  },
}

const turns = Array.from({ length: 8 }, (_, i) => ({
  text: `turn ${i}`,
  delayMs: 2,
  toolCalls: [{ name: 'work', input: { step: i * 2 } }, { name: 'work', input: { step: i * 2 + 1 } }],
}))
const agent = createAgent({ provider: scriptedProvider([...turns, { text: 'all done' }]), tools: { work }, session })

process.stdout.write('ready\n')
await agent.run({ prompt: 'do the work' })
process.stdout.write('finished\n')
