/**
 * Tool approval: a tool that waits for a yes before it runs.
 *
 *   node --import tsx examples/approval.ts
 *
 * First, a host that decides while the run waits: each `tool-approval` event
 * of `agent.stream()` is answered (a rule stands in for the person here).
 * Then a host with nobody to ask: the run stops as `suspended`, the pending
 * call is saved with the session, and a second agent on the same session (as
 * another process would) approves it and continues the run.
 *
 * With ANTHROPIC_API_KEY set, Claude does the work; without it the model is
 * scripted. The tool, the session and the decisions are real either way.
 */
import type { Provider } from 'zidane'
import { createAgent, tool } from 'zidane'
import { anthropic } from 'zidane/providers/anthropic'
import { createSession } from 'zidane/session'
import { scriptedProvider } from 'zidane/testing'
import { z } from 'zod'

const released: string[] = []
const deploy = tool({
  name: 'deploy',
  description: 'Deploy a release tag to an environment.',
  input: z.object({ tag: z.string(), env: z.enum(['staging', 'production']) }),
  // Staging goes out at once; production waits for a yes.
  needsApproval: input => input.env === 'production',
  execute: ({ tag, env }) => {
    released.push(`${tag}@${env}`)
    return `deployed ${tag} to ${env}`
  },
})

const live = Boolean(process.env.ANTHROPIC_API_KEY)
if (!live)
  console.log('[offline] ANTHROPIC_API_KEY is not set: the model is scripted.\n')
const model = (script: Parameters<typeof scriptedProvider>[0]): Provider => live ? anthropic() : scriptedProvider(script)
const task = 'Deploy v2.1.0 to staging, then to production. Use the deploy tool, one call per environment, both in one turn.'

console.log('1. Deciding while the run waits')
const both = { toolCalls: [{ name: 'deploy', input: { tag: 'v2.1.0', env: 'staging' } }, { name: 'deploy', input: { tag: 'v2.1.0', env: 'production' } }] }
const waiting = createAgent({ provider: model([both, { text: 'Staging is out; production was refused.' }]), tools: { deploy } })
for await (const event of waiting.stream({ prompt: task })) {
  if (event.type === 'tool-approval') {
    console.log(`  asked: ${event.name} ${JSON.stringify(event.input)}`)
    event.deny({ reason: 'production is frozen until Monday' })
  }
  if (event.type === 'tool-result')
    console.log(`  result: ${String(event.output)}`)
}

console.log('\n2. Nobody to ask: the run suspends, another agent approves and continues')
const session = await createSession()
const first = await createAgent({ provider: model([both]), tools: { deploy }, session }).run({ prompt: task })
console.log(`  stop: ${first.stopReason}; pending: ${first.pendingApprovals?.map(pending => `${pending.name} ${JSON.stringify(pending.input)}`).join(', ')}`)

const later = createAgent({ provider: model([{ text: 'Both environments run v2.1.0.' }]), tools: { deploy }, session })
for (const pending of later.pendingApprovals())
  await later.approve(pending.callId, { reason: 'change approved by the release manager' })
const continued = await later.run()
console.log(`  stop: ${continued.stopReason}; the model says: ${continued.text}`)
console.log(`\nreleased: ${released.join(', ')}`)
