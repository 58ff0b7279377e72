/**
 * `zidane/tools/prompts`: the descriptions of the built-in file tools, and the
 * ways to change them. Each tool factory takes `{ description }`, and
 * `withToolDescriptions` rewrites the descriptions of a whole tool map (a
 * preset's, say) without rebuilding the tools.
 *
 * @module zidane/tools/prompts
 */

import type { ToolDef, ToolMap } from '../types'
import type { ToolPrompts } from './descriptions'
import { mergeObjects } from '../../core/merge-objects'
import { TOOL_PROMPTS } from './descriptions'

export {
  EDIT_DESCRIPTION,
  GLOB_DESCRIPTION,
  GREP_DESCRIPTION,
  LIST_FILES_DESCRIPTION,
  MULTI_EDIT_DESCRIPTION,
  READ_FILE_DESCRIPTION,
  TOOL_PROMPTS,
  WRITE_FILE_DESCRIPTION,
} from './descriptions'
export type { ToolPrompts } from './descriptions'

/** A tool whose description can be overridden by name. */
export type ToolDescriptionTarget = keyof ToolPrompts

/** A replacement description, or a function of the default one (to append or reword). */
export type ToolDescriptionOverride = string | ((defaultDescription: string) => string)

/** Description overrides keyed by tool name. */
export type ToolDescriptions = Partial<Record<ToolDescriptionTarget, ToolDescriptionOverride>>

/** The description `target` gets with `override` applied to `base` (default: the built-in one). */
export function resolveToolDescription(target: ToolDescriptionTarget, override?: ToolDescriptionOverride, base: string = TOOL_PROMPTS[target]): string {
  if (override === undefined)
    return base
  return typeof override === 'function' ? override(base) : override
}

function isTarget(name: string): name is ToolDescriptionTarget {
  return Object.hasOwn(TOOL_PROMPTS, name)
}

/**
 * A copy of `tools` where each tool named in `descriptions` has the new
 * description (a function receives the tool's current one). Other tools are
 * kept as they are, the same objects.
 */
export function withToolDescriptions(tools: ToolMap, descriptions: ToolDescriptions): ToolMap {
  const out: ToolMap = {}
  for (const [key, def] of Object.entries(tools)) {
    const name = def.spec.name
    const override = isTarget(name) ? descriptions[name] : undefined
    out[key] = override === undefined ? def : describedAs(def, resolveToolDescription(name as ToolDescriptionTarget, override, def.spec.description))
  }
  return out
}

function describedAs<Input>(def: ToolDef<Input>, description: string): ToolDef<Input> {
  return mergeObjects(def, { spec: mergeObjects(def.spec, { description }) })
}
