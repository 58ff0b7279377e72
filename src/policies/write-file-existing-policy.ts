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
 * files are where models silently drop code they did not reproduce. A
 * per-call gate, checked right before the call runs: an earlier call of the
 * same turn may have created the file.
 */
export const writeFileExistingPolicy: BehaviorPolicy<null> = {
  name: 'write-file-existing-policy',
  enabled: behavior => fileToolBehaviorOf(behavior).writeFileExistingPolicy !== 'allow',
  async gateCall({ behavior, run, call, decided }) {
    const path = call.input.path
    if (call.name !== 'write_file' || decided?.type === 'block' || typeof path !== 'string' || path === '')
      return
    const execution = run.execution
    try {
      const resolved = execution.resolvePath(path)
      const info = await execution.stat(resolved)
      if (info?.type !== 'file')
        return
      const shown = displayPath(execution, resolved)
      if (blocksExistingWrite(fileToolBehaviorOf(behavior).writeFileExistingPolicy, [shown, resolved]))
        return { decision: { type: 'block', reason: recipe(shown) } }
    }
    catch (error) {
      // A gate that throws blocks the call; an unreadable path is the tool's to report.
      debugLog('write-file-existing-policy could not check a path', error)
    }
  },
}
