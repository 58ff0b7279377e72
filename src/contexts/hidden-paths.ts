/**
 * The agent's session store, kept out of its own file tools. When the run's
 * session lives in local files (`SessionStore.localPath`, the file store's
 * directory), the built-in tools see the execution context through a view
 * that refuses paths inside that directory, leaves it out of directory
 * listings (so `list_files`, `glob` and `grep` never walk into it), and
 * refuses shell commands that name it. A model that reads or rewrites its
 * own transcript can corrupt the session or loop on its own history.
 *
 * The shell check reads the command's text, so it stops the accidental case
 * (`cat .sessions/…`); a command that builds the path at run time gets past
 * it. A sandboxed context is the boundary for a hostile model.
 */

import type { DetachedTasksCapability, ExecutionContext } from './types'
import { realpathSync } from 'node:fs'
import { mergeObjects } from '../core/merge-objects'

/** A built-in tool's refusal to touch the session store. */
export class HiddenPathError extends Error {
  constructor(what: string, shown: string) {
    super(`${what} is inside this agent's session store (${shown}); the file tools cannot read, list or change it.`)
    this.name = 'HiddenPathError'
  }
}

function trimSlash(path: string): string {
  return path.length > 1 && (path.endsWith('/') || path.endsWith('\\')) ? path.slice(0, -1) : path
}

function within(path: string, dir: string): boolean {
  const resolved = trimSlash(path)
  return resolved === dir || resolved.startsWith(`${dir}/`) || resolved.startsWith(`${dir}\\`)
}

/**
 * The directory to hide for a context, or `undefined`: nothing to hide, or the
 * store holds the working directory itself (hiding it would hide everything).
 */
export function hiddenSessionDir(context: ExecutionContext, localPath: string | undefined): string | undefined {
  if (localPath === undefined || localPath === '')
    return undefined
  const dir = trimSlash(localPath)
  return within(context.cwd, dir) ? undefined : dir
}

/** The ways a command may spell the hidden directory: absolute, and relative to the working directory. */
function spellings(context: ExecutionContext, dir: string): string[] {
  const cwd = trimSlash(context.cwd)
  const names = [dir]
  if (within(dir, cwd) && dir !== cwd)
    names.push(dir.slice(cwd.length + 1))
  return names
}

const views = new WeakMap<ExecutionContext, Map<string, ExecutionContext>>()

/** `context` as the built-in tools see it with `dir` hidden; one view per context and directory. */
export function hideDirectory(context: ExecutionContext, dir: string): ExecutionContext {
  let byDir = views.get(context)
  if (!byDir) {
    byDir = new Map()
    views.set(context, byDir)
  }
  const existing = byDir.get(dir)
  if (existing)
    return existing
  const view = createView(context, dir)
  byDir.set(dir, view)
  return view
}

/**
 * The real path of `path` with symlinks resolved: of its deepest existing
 * ancestor, with the rest appended, for a path not created yet. Host paths
 * only; a path that cannot be resolved at all comes back as it is.
 */
function realPathOf(path: string): string {
  let head = path
  let rest = ''
  for (;;) {
    try {
      return realpathSync(head) + rest
    }
    catch {
      const cut = head.lastIndexOf('/')
      if (cut <= 0)
        return path
      rest = head.slice(cut) + rest
      head = head.slice(0, cut)
    }
  }
}

function createView(context: ExecutionContext, dir: string): ExecutionContext {
  const names = spellings(context, dir)
  const shown = names.at(-1)!
  // A symlink in the workspace can lead into the store, so on the host real paths are compared too.
  // Another context's paths are not the host's: resolving them here would mean nothing.
  const followsLinks = context.type === 'process'
  // The store's own real path, found once (at the first check, when the folder is most likely there).
  let realDir: string | undefined
  const realDirOf = () => realDir ??= realPathOf(dir)
  const check = (path: string): string => {
    const resolved = context.resolvePath(path)
    if (within(resolved, dir) || (followsLinks && within(realPathOf(resolved), realDirOf())))
      throw new HiddenPathError(path, shown)
    return resolved
  }
  const checkCommand = (command: string): void => {
    if (names.some(name => command.includes(name)))
      throw new HiddenPathError('This command names a path that', shown)
  }
  const overrides: Partial<ExecutionContext> = {
    resolvePath: check,
    readFile: (path, options) => context.readFile(check(path), options),
    writeFile: (path, data) => context.writeFile(check(path), data),
    stat: path => context.stat(check(path)),
    mkdir: path => context.mkdir(check(path)),
    remove: path => context.remove(check(path)),
    readDir: async (path) => {
      const resolved = check(path)
      const entries = await context.readDir(resolved)
      const base = trimSlash(resolved)
      return entries.filter(entry => !within(`${base}/${entry.name}`, dir))
    },
    exec: (command, options) => {
      checkCommand(command)
      return context.exec(command, options)
    },
    execStream: (command, options) => {
      checkCommand(command)
      return context.execStream(command, options)
    },
  }
  const start: DetachedTasksCapability['start'] = (options) => {
    checkCommand(options.command)
    return context.tasks!.start(options)
  }
  const tasks = context.tasks && delegate(context.tasks, { start })
  // Everything else (type, cwd, capabilities, spawn, destroy, …) is the context's own, read live.
  return delegate(context, tasks === undefined ? overrides : mergeObjects(overrides, { tasks }))
}

/** `target` with `overrides` in front; its other members read live from it, methods bound to it. */
function delegate<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(object, property) {
      if (Object.hasOwn(overrides, property))
        return overrides[property as keyof T]
      const value = Reflect.get(object, property, object)
      return typeof value === 'function' ? value.bind(object) : value
    },
  })
}
