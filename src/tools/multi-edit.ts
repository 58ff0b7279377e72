/** The built-in `multi_edit` tool: several replacements in one file, applied in order, all or nothing. */

import type { EditSpec } from './edit-match'
import type { ToolDescriptionOverride } from './prompts'
import type { ToolDef } from './types'
import { z } from 'zod'
import { editFields } from './edit'
import { runEdits } from './edit-core'
import { resolveToolDescription } from './prompts'
import { tool } from './tool'

/** The arguments of the `multi_edit` tool. */
export interface MultiEditInput {
  path: string
  edits: EditSpec[]
}

/** Options of `createMultiEditTool`. */
export interface MultiEditToolOptions {
  description?: ToolDescriptionOverride
  /** Largest file edited, and largest content an edit may leave, in bytes. Default 32 MiB (`read_file`'s limit). */
  maxFileBytes?: number
}

const input = z.object({
  path: z.string().min(1).describe('Path of the file, absolute or relative to the working directory.'),
  edits: z.array(z.object(editFields)).min(1).describe('Replacements, applied in order; each sees the result of the ones before it.'),
})

/** The `multi_edit` tool: several replacements in one file, applied in order, all or none. */
export function createMultiEditTool(options: MultiEditToolOptions = {}): ToolDef<MultiEditInput> {
  return tool({
    name: 'multi_edit',
    description: resolveToolDescription('multi_edit', options.description),
    input,
    isConcurrencySafe: false,
    execute: ({ path, edits }, ctx) => runEdits(ctx, path, edits, 'multi_edit', options),
  })
}

/** The built-in `multi_edit` tool. */
export const multiEdit: ToolDef<MultiEditInput> = createMultiEditTool()
