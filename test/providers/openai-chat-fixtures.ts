/** Shared inputs and recorders for the Chat Completions family tests. */

import type { ChatDialect } from '../../src/providers/openai-chat'
import type { StreamOptions } from '../../src/providers/types'
import { OPENAI_CHAT_DIALECT } from '../../src/providers/openai'
import { user } from './anthropic-fixtures'

export { assistant, recordCallbacks, rejectionOf, text, user } from './anthropic-fixtures'
export type { RecordedCallbacks } from './anthropic-fixtures'

/** Options for one turn; a fresh, never-aborted signal unless one is given. */
export function chatOptions(overrides: Partial<StreamOptions> = {}): StreamOptions {
  return {
    model: 'gpt-5.2',
    system: 'You are terse.',
    messages: [user({ type: 'text', text: 'Hello?' })],
    tools: [],
    thinking: 'off',
    signal: new AbortController().signal,
    ...overrides,
  }
}

/** OpenAI's dialect with some fields replaced. */
export function dialect(overrides: Partial<ChatDialect> = {}): ChatDialect {
  return { ...OPENAI_CHAT_DIALECT, ...overrides }
}

export const READ_TOOL = { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }
export const SHELL_TOOL = { name: 'shell', description: 'Run a command', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } }

/** A 1x1 PNG, base64. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='
