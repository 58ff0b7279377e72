import type { AgentBehavior } from '../../knobs/behavior'
import type { ResolvedCodemode } from '../../knobs/codemode-knobs'
import type { ToolMap } from '../types'
import { resolveCodemodeKnob } from '../../knobs/codemode-knobs'
import { CODEMODE_TOOL_NAME } from './catalog'

/**
 * Codemode's settings for a run, or `undefined` when it adds nothing: the
 * knob is off, `run({ tools })` replaced the registry (the host chose every
 * tool of that run), or the host registers its own `codemode`.
 */
export function codemodeFor(behavior: Readonly<AgentBehavior>, tools: ToolMap | undefined, replaced: boolean): ResolvedCodemode | undefined {
  const settings = resolveCodemodeKnob(behavior.codemode)
  if (!settings || replaced)
    return undefined
  if (Object.values(tools ?? {}).some(def => def.spec.name === CODEMODE_TOOL_NAME))
    return undefined
  return settings
}
