/**
 * Child process for the codemode idle-exit test: one run whose model calls
 * `codemode` (which starts a sandbox worker), then the program just ends
 * without `destroy()`. It must exit by itself: an idle sandbox worker does
 * not keep the event loop alive.
 */
import { createAgent } from '../../src'
import { scriptedProvider } from '../../src/testing'

const provider = scriptedProvider([{ toolCalls: [{ id: 'c', name: 'codemode', input: { code: 'console.log("in the sandbox"); return 6 * 7' } }] }, { text: 'done' }])
const agent = createAgent({ provider, behavior: { codemode: true } })
await agent.run({ prompt: 'go' })
console.log(JSON.stringify(provider.requests[1].messages.at(-1)!.content))
