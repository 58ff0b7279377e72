/**
 * `zidane/presets`: ready-made slices of `AgentOptions` to spread into
 * `createAgent`, e.g. `createAgent({ ...basic, provider })`. Any field can be
 * overridden after the spread.
 *
 * @module zidane/presets
 */

import type { AgentOptions } from '../agent/options'
import type { NeedsApprovalMap, ToolMap } from '../tools/types'
import { edit } from '../tools/edit'
import { glob } from '../tools/glob'
import { grep } from '../tools/grep'
import { listFiles } from '../tools/list-files'
import { multiEdit } from '../tools/multi-edit'
import { readFile } from '../tools/read-file'
import { shell } from '../tools/shell/shell'
import { writeFile } from '../tools/write-file'

/** Context-loading tools to leave out of `toolOutputBudget` (`behavior.toolOutputBudgetExcludeTools`). */
export { DEFAULT_BUDGET_EXCLUDE_TOOLS } from '../knobs/budget-knobs'

/** A reusable part of `AgentOptions`: tools and a system prompt, optionally behavior and aliases. */
export interface Preset extends Pick<AgentOptions, 'behavior' | 'toolAliases'> {
  readonly tools: ToolMap
  readonly system: string
}

const BASIC_SYSTEM_PROMPT = [
  'You are a coding agent working in a software project through tools. Act on the files and commands yourself rather than describing what the user should do.',
  'How to work:',
  '- Look before you change: find the relevant files with list_files, glob and grep, and read them with read_file.',
  '- Change existing files with edit or multi_edit, copying old_string exactly from what read_file showed; use write_file for new files.',
  '- Check your work: run the project\'s tests, type checker or the program itself with shell, read the failures, fix them, and run again.',
  '- Keep changes focused on the task and in the style of the surrounding code.',
  'When you are done, reply with a short summary of what you changed and how you verified it, including anything left unresolved.',
].join('\n')

/**
 * A general coding agent: shell plus the file tools, and a short system
 * prompt telling it how to use them. Of its tools, `shell` runs any command
 * and `write_file`, `edit` and `multi_edit` change files: a host that wants a
 * person to say yes first gates those four with `basicApprovals`
 * (`createAgent({ ...basic, needsApproval: basicApprovals, provider })`).
 * `read_file`, `list_files`, `glob` and `grep` only read.
 */
export const basic: Preset = Object.freeze({
  tools: Object.freeze({
    shell,
    read_file: readFile,
    write_file: writeFile,
    edit,
    multi_edit: multiEdit,
    list_files: listFiles,
    glob,
    grep,
  }),
  system: BASIC_SYSTEM_PROMPT,
})

/**
 * The `basic` tools a host should gate (docs/approval.md): `shell` (any
 * command, so anything the process may do) and the tools that change files
 * (`write_file`, `edit`, `multi_edit`). Pass it as `needsApproval`, or spread
 * it into a map of your own to change an entry.
 */
export const basicApprovals: NeedsApprovalMap = Object.freeze({ shell: true, write_file: true, edit: true, multi_edit: true })
