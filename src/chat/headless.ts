/**
 * One prompt, no UI: for jobs, CI steps and queue workers. An agent is made
 * for the run and destroyed after it, whatever happens, so a worker that
 * calls this in a loop leaks no MCP servers, background processes or timers.
 */

import type { AgentOptions, AgentRunOptions } from '../agent/options'
import type { PromptPart } from '../core/content'
import type { AgentStats } from '../core/stats'
import type { AgentBehavior } from '../knobs/behavior'
import { createAgent } from '../agent/create-agent'
import { mergeObjects } from '../core/merge-objects'
import { resolveBehavior } from '../knobs/behavior'
import { CHAT_MAX_IMAGE_EDGE, CHAT_MEDIA_BUDGET } from './profiles'

/**
 * The behavior a headless run starts from, under the caller's: images shrunk
 * once to 2000 px and media kept inline up to the providers' request limits,
 * as the chat profiles do (a job reads screenshots and documents just as a
 * chat does).
 */
export const HEADLESS_BEHAVIOR: Readonly<AgentBehavior> = Object.freeze({
  maxImageEdge: CHAT_MAX_IMAGE_EDGE,
  mediaBudget: CHAT_MEDIA_BUDGET,
})

/** Options of `runHeadless`: the agent's, the prompt, and the rest of the one run's. */
export interface HeadlessOptions extends AgentOptions {
  /** The one prompt. */
  readonly prompt: string | PromptPart[]
  /** Everything else `agent.run()` takes for this run (model, profile, signal, hooks, thinking, …). */
  readonly run?: Omit<AgentRunOptions, 'prompt'>
}

/**
 * Run one prompt on a fresh agent and return its stats. `HEADLESS_BEHAVIOR`
 * lies under `behavior` (the caller's knobs win; setting either media knob
 * replaces the media pair, as a run's behavior does). The agent is destroyed
 * once the run ends, also when it throws; a typed error of the run is
 * rethrown as it is.
 */
export async function runHeadless(options: HeadlessOptions): Promise<AgentStats> {
  const { prompt, run, ...agentOptions } = options
  const agent = createAgent(mergeObjects(agentOptions, { behavior: resolveBehavior(HEADLESS_BEHAVIOR, agentOptions.behavior) }))
  let stats: AgentStats
  try {
    stats = await agent.run(mergeObjects(run, { prompt }))
  }
  catch (error) {
    // The run's error is the one to report; a teardown failure after it would hide it.
    await agent.destroy().catch(() => {})
    throw error
  }
  await agent.destroy()
  return stats
}
