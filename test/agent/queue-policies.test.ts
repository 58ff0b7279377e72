import type { QueuedUserMessage, SteeringQueues } from '../../src/agent/steering'
import type { PendingTurn } from '../../src/loop/run-context'
import { describe, expect, it } from 'vitest'
import { MessageQueue } from '../../src/agent/message-queue'
import { queuePolicies } from '../../src/agent/steering'
import { runPolicyScript } from '../../src/testing'

function setup() {
  const queues: SteeringQueues = { steering: new MessageQueue<QueuedUserMessage>(), followUp: new MessageQueue<QueuedUserMessage>(), notices: new MessageQueue<PendingTurn>() }
  const [backgroundStall, steering] = queuePolicies(queues)
  return { queues, backgroundStall, steering }
}

const toolTurn = { phase: 'afterTurn' as const, toolResults: [{ callId: 'c', output: 'ok', isError: false }] }
const answer = { phase: 'afterTurn' as const, text: 'done' }

describe('steering', () => {
  it('takes every steered message at the boundary and keeps the run going, announcing each with its id', async () => {
    const { queues, steering } = setup()
    queues.steering.push({ prompt: 'one', id: 's1' })
    queues.steering.push({ prompt: 'two' })
    const { steps } = await runPolicyScript(steering, { steps: [answer] })
    expect(steps[0]).toMatchObject({
      keepGoing: true,
      messages: [
        { content: [{ type: 'text', text: 'one' }], queued: { kind: 'steer', id: 's1', prompt: 'one' } },
        { content: [{ type: 'text', text: 'two' }], queued: { kind: 'steer' } },
      ],
    })
    expect(queues.steering.size).toBe(0)
  })

  it('takes a follow-up only when the run would otherwise end, one per boundary', async () => {
    const { queues, steering } = setup()
    queues.followUp.push({ prompt: 'first' })
    queues.followUp.push({ prompt: 'second' })
    const { steps } = await runPolicyScript(steering, {
      steps: [toolTurn, { ...answer, decided: { continues: true } }, answer],
    })
    expect(steps.map(step => step.phase === 'afterTurn' && step.messages.map(m => m.queued?.kind))).toEqual([[], [], ['follow-up']])
    expect(queues.followUp.size).toBe(1)
  })

  it('adds nothing to a turn that ends the run, and leaves the queue for the next run', async () => {
    const { queues, steering } = setup()
    queues.steering.push({ prompt: 'later' })
    const { steps } = await runPolicyScript(steering, { steps: [{ ...answer, decided: { stop: 'max-turns' } }] })
    expect(steps[0]).toMatchObject({ end: 'max-turns', keepGoing: false, messages: [] })
    expect(queues.steering.size).toBe(1)
  })
})

describe('background-stall', () => {
  it('passes queued notices on as they are, without keeping the run going', async () => {
    const { queues, backgroundStall } = setup()
    const notice: PendingTurn = { content: [{ type: 'text', text: 'task t1 is silent', origin: 'injected' }], injected: 'background-stall' }
    queues.notices.push(notice)
    const { steps } = await runPolicyScript(backgroundStall, { steps: [toolTurn, toolTurn] })
    expect(steps[0]).toMatchObject({ keepGoing: false, messages: [notice] })
    expect(steps[1]).toMatchObject({ messages: [] })
  })

  it('keeps notices queued through a turn that ends the run', async () => {
    const { queues, backgroundStall } = setup()
    queues.notices.push({ content: [{ type: 'text', text: 'n', origin: 'injected' }], injected: 'background-stall' })
    await runPolicyScript(backgroundStall, { steps: [{ ...toolTurn, decided: { stop: 'completed' } }] })
    expect(queues.notices.size).toBe(1)
  })
})
