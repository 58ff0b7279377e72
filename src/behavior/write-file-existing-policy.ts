import type { ToolGateContext } from '../hooks/hook-map'
import type { WriteFileExistingPolicy } from '../knobs/file-knobs'
import type { BehaviorPolicy } from './policy'
import { debugLog } from '../debug'
import { fileToolBehaviorOf } from '../tools/file-behavior'
import { displayPath } from '../tools/file-content'
import { pathMatcher } from '../tools/glob-pattern'

function matchesAny(patterns: readonly string[] | undefined, paths: readonly string[]): boolean {
  return (patterns ?? []).some((pattern) => {
    try {
      const test = pathMatcher(pattern)
      return paths.some(test)
    }
    catch {
      return false
    }
  })
}

/** Whether a write to an existing file at these paths (relative, absolute) is refused. */
export function blocksExistingWrite(policy: WriteFileExistingPolicy, paths: readonly string[]): boolean {
  if (typeof policy === 'string')
    return policy === 'block-with-edit-recipe'
  if (matchesAny(policy.denyPaths, paths))
    return true
  if (matchesAny(policy.allowPaths, paths))
    return false
  return policy.mode === 'block-with-edit-recipe'
}

function recipe(shown: string): string {
  return `${shown} already exists, and this agent does not overwrite existing files with write_file. `
    + `To change it: 1) call read_file on ${shown}; 2) apply your changes with edit (one replacement) or multi_edit (several), `
    + 'copying old_string exactly from what read_file showed. To start a file from scratch, write_file a new path instead.'
}

/**
 * `writeFileExistingPolicy`: refuse `write_file` to a path that exists,
 * pointing the model to `read_file` + `edit`. Whole-file rewrites of existing
 * files are where models silently drop code they did not reproduce.
 */
export const writeFileExistingPolicy: BehaviorPolicy = {
  name: 'write-file-existing-policy',
  attach(ctx) {
    const policy = fileToolBehaviorOf(ctx.behavior).writeFileExistingPolicy
    if (policy === 'allow')
      return
    const execution = ctx.run.execution

    return ctx.hooks.hook('tool:gate', async (gate: ToolGateContext) => {
      if (gate.name !== 'write_file' || gate.block || typeof gate.input.path !== 'string' || gate.input.path === '')
        return
      try {
        const resolved = execution.resolvePath(gate.input.path)
        const info = await execution.stat(resolved)
        if (info?.type !== 'file')
          return
        const shown = displayPath(execution, resolved)
        if (blocksExistingWrite(policy, [shown, resolved])) {
          gate.block = true
          gate.reason = recipe(shown)
        }
      }
      catch (error) {
        // A gate that throws blocks the call; an unreadable path is the tool's to report.
        debugLog('write-file-existing-policy could not check a path', error)
      }
    })
  },
}
