import type { AgentOptions, AgentRunOptions } from '../../src/agent/options'
import type { QueuedUserMessage } from '../../src/agent/steering'
/**
 * Small helpers shared by the offline agent tests. Nothing here talks to a
 * network or reads a clock for assertions: timing comes from the script.
 */
import type { AgentClock } from '../../src/core/clock'
import type { SessionContentBlock, SessionMessage, SessionTurn } from '../../src/core/content'
import type { AgentStats } from '../../src/core/stats'
import type { PendingTurn, RunContext } from '../../src/loop/run-context'
import type { BehaviorPolicy } from '../../src/policies/policy'
import type { ScriptedTurn } from '../../src/testing'
import type { ToolDef } from '../../src/tools/types'
import { MessageQueue } from '../../src/agent/message-queue'
import { agentPolicies, executeRun } from '../../src/agent/run'
import { createProcessContext } from '../../src/contexts'
import { createHookBus, registerHookMap } from '../../src/hooks/bus'
import { createToolStateController } from '../../src/tool-state'

/** A promise with its resolver exposed. */
export interface Deferred<T = void> {
  promise: Promise<T>
  resolve: (value: T) => void
  reject: (reason?: unknown) => void
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (reason?: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Yield to the microtask queue `n` times (a deterministic "delay"). */
export async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await Promise.resolve()
}

export function wait(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}

/** A clock whose ids are `${prefix}-1`, `${prefix}-2`, … and whose time is whatever `time.now` holds. */
export function fakeClock(prefix: string, time: { now: number } = { now: 1_000 }): AgentClock & { ids: string[] } {
  let n = 0
  const ids: string[] = []
  return {
    ids,
    now: () => time.now,
    randomUUID: () => {
      const id = `${prefix}-${++n}`
      ids.push(id)
      return id
    },
  }
}

/** A tool that answers with a fixed string (or the JSON of its input). */
export function echoTool(name: string, options: Partial<ToolDef> = {}): ToolDef {
  return {
    spec: { name, description: `${name} tool`, inputSchema: { type: 'object', properties: {} } },
    execute: input => `${name}:${JSON.stringify(input)}`,
    ...options,
  }
}

/** `n` turns each calling `toolName` once, then a final text turn. */
export function toolLoop(n: number, toolName: string, finalText = 'done'): ScriptedTurn[] {
  const turns: ScriptedTurn[] = []
  for (let i = 0; i < n; i++)
    turns.push({ toolCalls: [{ name: toolName, input: { i } }] })
  turns.push({ text: finalText })
  return turns
}

/** The concatenated text blocks of a message. */
export function textOf(message: SessionMessage | SessionTurn | undefined): string {
  if (!message)
    return ''
  return message.content.map(block => block.type === 'text' ? block.text : '').join('')
}

export function blocksOfType<T extends SessionContentBlock['type']>(
  messages: readonly { content: SessionContentBlock[] }[],
  type: T,
): Extract<SessionContentBlock, { type: T }>[] {
  return messages.flatMap(message => message.content.filter(block => block.type === type)) as Extract<SessionContentBlock, { type: T }>[]
}

/** Texts the loop injected (nudges, continuations) in a request's messages. */
export function injectedTexts(messages: readonly SessionMessage[]): string[] {
  return blocksOfType(messages, 'text').filter(block => block.origin === 'injected').map(block => block.text)
}

/**
 * Pairing check over a conversation: every tool_call id is answered by exactly
 * one tool_result in the next message, and no tool_result lacks its call.
 * Returns the list of problems (empty when the conversation is well paired).
 */
export function pairingProblems(messages: readonly { role: string, content: SessionContentBlock[] }[]): string[] {
  const problems: string[] = []
  messages.forEach((message, index) => {
    const calls = message.content.filter(block => block.type === 'tool_call').map(block => (block as { id: string }).id)
    const next = messages[index + 1]
    const results = next
      ? next.content.filter(block => block.type === 'tool_result').map(block => (block as { callId: string }).callId)
      : []
    for (const id of calls) {
      const count = results.filter(callId => callId === id).length
      if (count !== 1)
        problems.push(`call ${id} at message ${index} has ${count} results`)
    }
    if (message.role === 'user') {
      const previous = messages[index - 1]
      const previousCalls = new Set(previous
        ? previous.content.filter(block => block.type === 'tool_call').map(block => (block as { id: string }).id)
        : [])
      for (const block of message.content) {
        if (block.type === 'tool_result' && !previousCalls.has(block.callId))
          problems.push(`result ${block.callId} at message ${index} has no call`)
      }
    }
  })
  return problems
}

export interface CapturedRun {
  /** The run's recorded turns (the conversation as the loop kept it). */
  turns: SessionTurn[]
  stats?: AgentStats
  error?: unknown
  controller: AbortController
}

/**
 * Run the loop directly with one extra policy that keeps a handle on the run's
 * context, so a test can read the recorded turns (`injected` markers,
 * `createdAt`, pairing) that no public surface exposes without a session.
 * `onStart` receives the controller before the run starts (to abort it).
 */
export async function runCapturingTurns(
  agent: AgentOptions,
  runOptions: AgentRunOptions,
  onStart?: (controller: AbortController) => void,
): Promise<CapturedRun> {
  const hooks = createHookBus()
  registerHookMap(hooks, agent.hooks)
  const controller = new AbortController()
  let context: RunContext | undefined
  // Asked once at run start with the run itself as its view; it then stays out of every phase.
  const capture: BehaviorPolicy = {
    name: 'test-capture',
    enabled(_behavior, run) {
      context = run as RunContext
      return false
    },
  }
  onStart?.(controller)
  const captured: CapturedRun = { turns: [], controller }
  try {
    const queues = { steering: new MessageQueue<QueuedUserMessage>(), followUp: new MessageQueue<QueuedUserMessage>(), notices: new MessageQueue<PendingTurn>() }
    captured.stats = await executeRun({ agent, hooks, controller, queues, toolState: createToolStateController(), execution: createProcessContext(), onBackgroundStall: () => {}, policies: agentPolicies(queues, [...agent.policies ?? [], capture]) }, runOptions)
  }
  catch (error) {
    captured.error = error
  }
  captured.turns = context?.turns ?? []
  return captured
}
