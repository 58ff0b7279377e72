/** Shared inputs and recorders for the Anthropic provider tests. */

import type { SessionContentBlock, SessionMessage } from '../../src/core/content'
import type { StreamCallbacks, StreamOptions } from '../../src/providers/types'

export function user(...content: SessionContentBlock[]): SessionMessage {
  return { role: 'user', content }
}

export function assistant(...content: SessionContentBlock[]): SessionMessage {
  return { role: 'assistant', content }
}

export function text(value: string): SessionContentBlock {
  return { type: 'text', text: value }
}

/** Options for one turn; a fresh, never-aborted signal unless one is given. */
export function streamOptions(overrides: Partial<StreamOptions> = {}): StreamOptions {
  return {
    model: 'claude-sonnet-5-5',
    system: 'You are terse.',
    messages: [user(text('Hello?'))],
    tools: [],
    thinking: 'off',
    signal: new AbortController().signal,
    ...overrides,
  }
}

export interface RecordedCallbacks {
  callbacks: StreamCallbacks
  texts: string[]
  thinking: string[]
  toolStarts: { id: string, name: string }[]
  /** Every callback in arrival order, e.g. `text:Hel`, `tool:get_weather`, `activity`. */
  timeline: string[]
}

export function recordCallbacks(): RecordedCallbacks {
  const recorded: RecordedCallbacks = {
    texts: [],
    thinking: [],
    toolStarts: [],
    timeline: [],
    callbacks: {
      onText: (delta) => {
        recorded.texts.push(delta)
        recorded.timeline.push(`text:${delta}`)
      },
      onThinking: (delta) => {
        recorded.thinking.push(delta)
        recorded.timeline.push(`thinking:${delta}`)
      },
      onToolCallStart: (call) => {
        recorded.toolStarts.push(call)
        recorded.timeline.push(`tool:${call.name}`)
      },
      onActivity: () => {
        recorded.timeline.push('activity')
      },
    },
  }
  return recorded
}

/** Await a rejection and hand back the error for assertions. */
export async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  }
  catch (error) {
    return error
  }
  throw new Error('expected the promise to reject')
}
