/**
 * Child process for the approval test: one process suspends a run on a call
 * that needs approval, another approves (or denies) it and continues. Both
 * record into a file session store and print one JSON line.
 * Arguments: <store dir> <session id> suspend
 *            <store dir> <session id> approve|deny <call id> <reason>
 */
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAgent } from '../../src'
import { createSession, loadSession } from '../../src/session'
import { createFileStore } from '../../src/session/stores'
import { scriptedProvider } from '../../src/testing'

const [dir, sessionId, mode, callId, reason] = process.argv.slice(2)
const store = createFileStore({ dir })

const deploy = {
  spec: { name: 'deploy', description: 'Deploy a tag', inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] } },
  needsApproval: true,
  execute: ({ tag }: { tag: string }) => {
    // What ran, and in which process: the test reads it back.
    appendFileSync(join(dir, 'deployed.log'), `${tag} ${process.pid}\n`)
    return `deployed ${tag}`
  },
}

if (mode === 'suspend') {
  const session = await createSession({ id: sessionId, store })
  const provider = scriptedProvider([{ text: 'Deploying.', toolCalls: [{ id: 'call-deploy', name: 'deploy', input: { tag: 'v2.1.0' } }] }])
  const stats = await createAgent({ provider, tools: { deploy }, session }).run({ prompt: 'Deploy v2.1.0' })
  process.stdout.write(`${JSON.stringify({ stopReason: stats.stopReason, suspended: stats.suspended, pending: stats.pendingApprovals, pid: process.pid })}\n`)
}
else {
  const session = await loadSession(sessionId, { store })
  const provider = scriptedProvider([{ text: 'Done.' }])
  const agent = createAgent({ provider, tools: { deploy }, session })
  const pendingBefore = agent.pendingApprovals().map(approval => approval.callId)
  if (mode === 'approve')
    await agent.approve(callId, { reason })
  else
    await agent.deny(callId, { reason })
  const stats = await agent.run()
  const results = provider.requests[0].messages.flatMap(message => message.content).filter(block => block.type === 'tool_result')
  process.stdout.write(`${JSON.stringify({ stopReason: stats.stopReason, pendingBefore, results, pid: process.pid })}\n`)
}
