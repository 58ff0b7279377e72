/**
 * Child process for the checkpoint-runtime tests: one worker of a durable
 * agent on a file store, talking to a fake model server the parent runs.
 * Arguments: <mode> <store dir> <session id> <model server url>.
 * - `suspend`: run the prompt; the `step` tool suspends the run after step 1.
 * - `resume`: `agent.resume()` the session's suspended run.
 * - `crash`: run the prompt; the `step` tool kills this process (SIGKILL) at step 2.
 * Prints how the run ended as one JSON line; `step <n>` lines as steps run.
 */
import { z } from 'zod'
import { createAgent, tool } from '../../src'
import { checkpointRuntime } from '../../src/durable'
import { anthropic } from '../../src/providers/anthropic'
import { loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'

const [mode, dir, sessionId, url] = process.argv.slice(2)
const session = await loadSession(sessionId, { store: createFileStore({ dir }) })
let suspendAfterStep: (() => void) | undefined

const step = tool({
  name: 'step',
  description: 'Do one step of the work',
  input: z.object({ n: z.number() }),
  execute: async ({ n }) => {
    process.stdout.write(`step ${n}\n`)
    if (mode === 'crash' && n === 2)
      process.kill(process.pid, 'SIGKILL')
    if (mode === 'suspend' && n === 1)
      suspendAfterStep?.()
    return `step ${n} done`
  },
})

const agent = createAgent({
  provider: anthropic({ baseURL: url, apiKey: 'fake' }),
  tools: { step },
  session,
  durable: checkpointRuntime({ leaseRenewMs: 1000 }),
})
suspendAfterStep = () => void agent.suspend('deploying a new version')

const stats = mode === 'resume' ? await agent.resume() : await agent.run({ prompt: 'Do the three steps.' })
process.stdout.write(`${JSON.stringify({ stopReason: stats.stopReason, suspended: stats.suspended, suspendReason: stats.suspendReason, text: stats.text, turns: stats.turns })}\n`)
