/**
 * Tools that hand the turn to the person at the keyboard: `ask_user` for a
 * question, `present_plan` for approval before acting. They are thin bridges
 * to host callbacks (a terminal prompt, a chat UI, a review queue): the agent
 * loop simply waits on the tool call, so no special pause machinery is needed.
 */

import type { AskUserCallback } from './ask-user-callbacks'
import type { ToolDef, ToolMap } from './types'
import { z } from 'zod'
import { rememberAskUserCallback } from './ask-user-callbacks'
import { tool } from './tool'

export type { AskUserCallback } from './ask-user-callbacks'

/** What `present_plan`'s callback reports back. */
export interface PlanDecision {
  approved: boolean
  /** Free-form remarks: what to change, or conditions on the approval. */
  feedback?: string
}

/** How the host shows a plan to its user and returns the decision. */
export type PresentPlanCallback = (plan: string, options: { signal: AbortSignal }) => Promise<PlanDecision>

/**
 * Host callbacks behind the interaction tools. Each tool exists only when its
 * callback is given: a model offered a tool that can only fail would spend
 * turns calling it.
 */
export interface InteractionToolOptions {
  /** Put a question to the user; resolves with the answer. `signal` aborts with the run. */
  askUser?: AskUserCallback
  /** Show a plan for approval; resolves with the user's decision. `signal` aborts with the run. */
  presentPlan?: PresentPlanCallback
}

/** The arguments of the `ask_user` tool. */
export interface AskUserInput {
  question: string
  options?: string[]
}

/** The arguments of the `present_plan` tool. */
export interface PresentPlanInput {
  plan: string
}

/** `ask_user`, wired to `askUser`. */
export function createAskUserTool(askUser: AskUserCallback): ToolDef<AskUserInput> {
  const def = tool({
    name: 'ask_user',
    description: 'Ask the user a question and wait for the answer. Use it when a decision or a fact only the user has blocks the task; '
      + 'do not ask for what you can find out yourself. Offer `options` when the answer is one of a few choices.',
    input: z.object({
      question: z.string().trim().min(1).describe('The question, self-contained: the user may not have followed the work so far.'),
      options: z.array(z.string().trim().min(1)).min(1).max(10).optional().describe('Suggested answers the user can pick from; they may still answer freely.'),
    }),
    async execute({ question, options }, ctx) {
      const answer = await untilAborted(() => askUser(question, { options, signal: ctx.signal }), ctx.signal, 'ask_user')
      const text = typeof answer === 'string' ? answer.trim() : ''
      return text === '' ? 'The user gave no answer.' : `The user answered: ${text}`
    },
  })
  rememberAskUserCallback(def, askUser)
  return def
}

/** `present_plan`, wired to `presentPlan`. */
export function createPresentPlanTool(presentPlan: PresentPlanCallback): ToolDef<PresentPlanInput> {
  return tool({
    name: 'present_plan',
    description: 'Present a plan to the user for approval before carrying it out, and wait for the decision. '
      + 'Write the plan in Markdown: the steps, the files or systems touched, and the risks. If the user rejects it, revise it using the feedback.',
    input: z.object({ plan: z.string().trim().min(1).describe('The plan, in Markdown.') }),
    async execute({ plan }, ctx) {
      const decision = await untilAborted(() => presentPlan(plan, { signal: ctx.signal }), ctx.signal, 'present_plan')
      const feedback = typeof decision?.feedback === 'string' && decision.feedback.trim() !== '' ? decision.feedback.trim() : undefined
      if (decision?.approved === true)
        return feedback ? `The user approved the plan, with feedback: ${feedback}` : 'The user approved the plan. Carry it out.'
      return feedback
        ? `The user rejected the plan. Feedback: ${feedback}\nRevise the plan and present it again.`
        : 'The user rejected the plan without feedback. Ask what they want changed, or revise the plan and present it again.'
    },
  })
}

/** The interaction tools the given callbacks support, keyed by name; spread it into `AgentOptions.tools`. */
export function createInteractionTools(options: InteractionToolOptions): ToolMap {
  const tools: ToolMap = {}
  if (options.askUser)
    tools.ask_user = createAskUserTool(options.askUser)
  if (options.presentPlan)
    tools.present_plan = createPresentPlanTool(options.presentPlan)
  return tools
}

/**
 * Call the host, then settle with its answer or reject as soon as the run is
 * aborted: a host UI that ignores the signal must not hold the run. An
 * already-aborted run never reaches the host.
 */
function untilAborted<T>(call: () => Promise<T>, signal: AbortSignal, name: string): Promise<T> {
  const aborted = () => new Error(`${name} was aborted before the user answered`)
  if (signal.aborted)
    return Promise.reject(aborted())
  const work = (async () => call())()
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted())
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
