import type { ToolDef } from '../../src'

/**
 * A tool whose output carries what a request writer must get right: accented
 * and astral characters, a quote, a backslash and a lone surrogate (which the
 * wire makes well-formed). The request-bytes tests of each provider use it.
 */
export const lookupTool: ToolDef = {
  spec: { name: 'lookup', description: 'Look a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } },
  execute: input => `the word ${String(input.word)}: \u00E9t\u00E9 \u{1F600} "quoted" \\ back \uD800`,
}
