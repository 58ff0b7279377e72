import type { PromptPart, SystemNoteText } from '../core/content'
import type { PendingTurn, RunContext } from '../loop/run-context'
import type { MessageQueue } from './message-queue'
import { promptContent } from './prompt-content'

/** A user message waiting in `agent.steer` or `agent.followUp`. */
export interface QueuedUserMessage {
  prompt: string | PromptPart[]
  /** The caller's id; `steer:inject` gives it back. */
  id?: string
  systemNotes?: readonly SystemNoteText[]
}

export interface SteeringQueues {
  /** Joins the conversation at the next turn boundary. */
  steering: MessageQueue<QueuedUserMessage>
  /** Joins only when the run would otherwise end. */
  followUp: MessageQueue<QueuedUserMessage>
  /** The agent's own one-shot notices for the model (a stalled background task); they never keep a run going. */
  notices: MessageQueue<PendingTurn>
}

/**
 * Feed the agent's queues into one run. Steered messages join before the next
 * model call (and keep the run going); a follow-up joins when the run would
 * otherwise stop. Messages queued while no run is going join the next run,
 * right after its prompt.
 */
export function attachSteering(run: RunContext, queues: SteeringQueues): () => void {
  takeAll(run, queues.steering, 'steer')
  takeNotices(run, queues.notices)
  return run.hooks.hook('turn:after', ({ toolResults }) => {
    if (run.signal.aborted || run.stopRequest)
      return
    takeNotices(run, queues.notices)
    if (queues.steering.size > 0) {
      takeAll(run, queues.steering, 'steer')
      run.keepGoing = true
      return
    }
    const wouldStop = toolResults.length === 0 && !run.keepGoing
    const next = wouldStop ? queues.followUp.shift() : undefined
    if (next) {
      run.pending.push(pendingFrom(next, 'follow-up'))
      run.keepGoing = true
    }
  })
}

function takeAll(run: RunContext, queue: MessageQueue<QueuedUserMessage>, kind: 'steer' | 'follow-up'): void {
  for (let message = queue.shift(); message; message = queue.shift())
    run.pending.push(pendingFrom(message, kind))
}

function takeNotices(run: RunContext, queue: MessageQueue<PendingTurn>): void {
  for (let notice = queue.shift(); notice; notice = queue.shift())
    run.pending.push(notice)
}

function pendingFrom(message: QueuedUserMessage, kind: 'steer' | 'follow-up'): PendingTurn {
  return { content: promptContent(message.prompt, message.systemNotes), queued: { kind, id: message.id, prompt: message.prompt } }
}
