import type { SessionContentBlock, SessionTurn } from '../core/content'
import { toolResultToText } from '../session/tool-output'
import { SKILLS_USE } from './skills/tools'
import { utf8Bytes } from './summary-limits'

/** Most skill bodies put back after a summary. */
const RESTORE_MAX_SKILLS = 5

/**
 * The skills activated in the turns a summary replaces, put back after it:
 * the text each successful `skills_use { name }` returned (its instructions
 * and file list), newest activation first, within `budget` bytes; a body that
 * does not fit is left out (the model can call `skills_use` again). Read from
 * the turns themselves, so it holds for skills of earlier runs of the session
 * too, and needs nothing from the skills policy.
 */
export function restoredSkills(older: readonly SessionTurn[], budget: number): { blocks: SessionContentBlock[], skills: string[], used: number } {
  const calls = new Map<string, string>()
  const results = new Map<string, string>()
  for (const turn of older) {
    for (const block of turn.content) {
      if (block.type === 'tool_call' && block.name === SKILLS_USE && typeof block.input.name === 'string')
        calls.set(block.id, block.input.name)
      else if (block.type === 'tool_result' && block.isError !== true)
        results.set(block.callId, toolResultToText(block.output))
    }
  }
  const newestFirst = new Map<string, string>()
  for (const [callId, name] of [...calls].reverse()) {
    const text = results.get(callId)
    if (text !== undefined && !newestFirst.has(name))
      newestFirst.set(name, text)
  }
  const blocks: SessionContentBlock[] = []
  const skills: string[] = []
  let left = budget
  for (const [name, text] of [...newestFirst].slice(0, RESTORE_MAX_SKILLS)) {
    const block: SessionContentBlock = { type: 'text', origin: 'injected', text: `Skill "${name}" was active before the summary; its instructions, restored:\n${text}` }
    const size = utf8Bytes(block.text)
    if (size > left)
      continue
    left -= size
    blocks.push(block)
    skills.push(name)
  }
  return { blocks, skills, used: budget - left }
}
