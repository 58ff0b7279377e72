/** The line a direct call of a tool declared for scripts gets in `'only'` mode, and how many a conversation holds. */

import type { SessionTurn } from '../../core/content'
import type { ToolOutput } from '../../core/tool-io'

const NOTE_START = '[codemode] '

/** The note for a tool called directly although it is declared for scripts. */
export function directCallNote(wireName: string): string {
  return `${NOTE_START}${wireName} is also callable inside a codemode script as tools.${wireName}(args): one script can make many such calls and return only what you need.`
}

/** A note goes on text results only: never on `read_file` (its text is quoted back in edits) or on JSON, which a reader parses. */
export function takesNote(name: string, result: ToolOutput): result is string {
  if (typeof result !== 'string' || name === 'read_file')
    return false
  const first = result.trimStart()[0]
  if (first !== '{' && first !== '[')
    return true
  try {
    JSON.parse(result)
    return false
  }
  catch {
    return true
  }
}

/** Notes about `wireName` already in the conversation (an earlier run of the same session). */
export function noteCountIn(turns: readonly SessionTurn[], wireName: string): number {
  const note = `${NOTE_START}${wireName} is also callable`
  let count = 0
  for (const turn of turns) {
    for (const block of turn.content) {
      if (block.type === 'tool_result' && typeof block.output === 'string' && block.output.includes(note))
        count++
    }
  }
  return count
}
