import type { PromptPart, SystemNoteText } from '../core/content'
import type { PendingTurn, RunContext } from '../loop/run-context'
import type { BehaviorPolicy, SteerDecision } from '../policies/policy'
import type { MessageQueue } from './message-queue'
import { pushAll } from '../core/push-all'
import { promptContent } from './prompt-content'

/** A user message waiting in `agent.steer` or `agent.followUp`. */
export interface QueuedUserMessage {
  prompt: string | PromptPart[]
  /** The caller's id; `steer:inject` gives it back. */
  id?: string
  systemNotes?: readonly SystemNoteText[]
}

/** The agent's message queues, shared by its runs. */
export interface SteeringQueues {
  /** Joins the conversation at the next turn boundary. */
  steering: MessageQueue<QueuedUserMessage>
  /** Joins only when the run would otherwise end. */
  followUp: MessageQueue<QueuedUserMessage>
  /** The agent's own one-shot notices for the model (a stalled background task); they never keep a run going. */
  notices: MessageQueue<PendingTurn>
}

/**
 * Messages queued while no run was going join the next run right after its
 * prompt: steered ones, then notices. Follow-ups wait for the run to end.
 */
export function seedQueuedMessages(run: RunContext, queues: SteeringQueues): void {
  pushAll(run.pending, queues.steering.drain().map(message => pendingFrom(message, 'steer')))
  pushAll(run.pending, queues.notices.drain())
}

/**
 * The agent's queues as two policies, run after every other one so they see
 * what the others decided. `background-stall` passes notices of stalled
 * background tasks to the model at the next turn (they never keep a run
 * going). `steering` adds steered messages at each turn boundary (they keep
 * the run going) and a follow-up only when the run would otherwise end.
 * Neither adds anything to a turn that ends the run.
 */
export function queuePolicies(queues: SteeringQueues): BehaviorPolicy<null>[] {
  const backgroundStall: BehaviorPolicy<null> = {
    name: 'background-stall',
    afterTurn({ decided }) {
      if (decided.ending || queues.notices.size === 0)
        return
      return { decision: queues.notices.drain().map((notice): SteerDecision => ({ type: 'steer', message: notice })) }
    },
  }
  const steering: BehaviorPolicy<null> = {
    name: 'steering',
    afterTurn({ decided, toolResults }) {
      if (decided.ending)
        return
      if (queues.steering.size > 0) {
        return { decision: queues.steering.drain().map((message): SteerDecision => ({ type: 'steer', message: pendingFrom(message, 'steer'), continue: true })) }
      }
      const wouldStop = toolResults.length === 0 && !decided.continues
      const next = wouldStop ? queues.followUp.shift() : undefined
      if (next)
        return { decision: { type: 'steer', message: pendingFrom(next, 'follow-up'), continue: true } }
    },
  }
  return [backgroundStall, steering]
}

function pendingFrom(message: QueuedUserMessage, kind: 'steer' | 'follow-up'): PendingTurn {
  return { content: promptContent(message.prompt, message.systemNotes), queued: { kind, id: message.id, prompt: message.prompt } }
}
