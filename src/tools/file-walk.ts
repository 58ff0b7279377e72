/**
 * Breadth-first directory walk over the execution context's `readDir`, shared
 * by `list_files`, `glob` and `grep`. Entries come in a stable order (by name
 * within a directory), symlinked directories are not followed (no loops), and
 * unreadable subdirectories are skipped rather than failing the whole walk.
 */

import type { ExecutionContext, FileType } from '../contexts/types'
import { joinPath } from './file-content'

export interface WalkEntry {
  /** Path in the context. */
  path: string
  /** Path relative to the walk's root, `/`-separated. */
  relative: string
  type: FileType
  /** A directory the walk did not enter because of the ignore list. */
  skipped?: boolean
}

export interface WalkOptions {
  /** Directory names not to enter. */
  ignore: ReadonlySet<string>
  /** Levels below the root to list; 1 lists the root's entries only. Default unlimited. */
  maxDepth?: number
  signal?: AbortSignal
}

export async function* walkTree(context: ExecutionContext, root: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY
  const queue: { path: string, relative: string, depth: number }[] = [{ path: root, relative: '', depth: 0 }]
  for (let head = 0; head < queue.length; head++) {
    options.signal?.throwIfAborted()
    const dir = queue[head]
    let entries
    try {
      entries = await context.readDir(dir.path)
    }
    catch (error) {
      if (head === 0)
        throw error
      continue
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      // Per entry, not per directory: one directory may hold a hundred thousand files.
      options.signal?.throwIfAborted()
      const relative = dir.relative === '' ? entry.name : `${dir.relative}/${entry.name}`
      const path = joinPath(dir.path, entry.name)
      const skipped = entry.type === 'directory' && options.ignore.has(entry.name)
      yield { path, relative, type: entry.type, ...(skipped ? { skipped } : {}) }
      if (entry.type === 'directory' && !skipped && dir.depth + 1 < maxDepth)
        queue.push({ path, relative, depth: dir.depth + 1 })
    }
  }
}

/** Order paths as a tree listing does: a directory's entries right after it. */
export function compareTreePaths(a: string, b: string): number {
  const left = a.split('/')
  const right = b.split('/')
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i])
      return left[i] < right[i] ? -1 : 1
  }
  return left.length - right.length
}
