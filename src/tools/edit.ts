/** The built-in `edit` tool: one exact, unique replacement (or every occurrence) in a text file. */

import type { ToolDescriptionOverride } from './prompts'
import type { ToolDef } from './types'
import { z } from 'zod'
import { runEdits } from './edit-core'
import { resolveToolDescription } from './prompts'
import { tool } from './tool'

/** The arguments of the `edit` tool. */
export interface EditInput {
  path: string
  old_string: string
  new_string: string
  replace_all?: boolean
}

/** Options of `createEditTool`. */
export interface EditToolOptions {
  description?: ToolDescriptionOverride
  /** Largest file edited, and largest content an edit may leave, in bytes. Default 32 MiB (`read_file`'s limit). */
  maxFileBytes?: number
}

/** The fields of one replacement, shared with `multi_edit`. */
export const editFields = {
  old_string: z.string().min(1).describe('The exact text to replace, copied from the file.'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one.'),
}

const input = z.object({
  path: z.string().min(1).describe('Path of the file, absolute or relative to the working directory.'),
  ...editFields,
})

/** The `edit` tool: replace one exact occurrence of a string in a file (or all of them). */
export function createEditTool(options: EditToolOptions = {}): ToolDef<EditInput> {
  return tool({
    name: 'edit',
    description: resolveToolDescription('edit', options.description),
    input,
    isConcurrencySafe: false,
    execute: ({ path, ...edit }, ctx) => runEdits(ctx, path, [edit], 'edit', options),
  })
}

/** The built-in `edit` tool. */
export const edit: ToolDef<EditInput> = createEditTool()
