/**
 * The docker CLI invocations the docker context makes, as pure functions of
 * their inputs: argv arrays (never shell strings) plus the small POSIX `sh`
 * scripts that run inside the container. Keeping them pure means they are
 * tested without an engine; the scripts are plain `sh`, so the tests also run
 * them on the host against real files and processes.
 */

import type { ContextHardening, DirEntry, FileStat, FileType } from './types'
import { ContextFileError } from './errors'

/** Label put on every container this SDK creates, so stray ones can be found and removed. */
export const CONTAINER_LABEL = 'dev.zidane.context'

/**
 * Environment variable carrying a per-command id. Children inherit it, so the
 * whole tree of one command can be found (and killed) from inside the
 * container: killing the `docker exec` client on the host would leave the
 * command running in the container.
 */
export const EXEC_MARKER_VAR = 'ZIDANE_EXEC_ID'

/** Exit codes the file scripts use to report errors `cat`/`ls` would only describe in prose. */
export const FILE_SCRIPT_EXIT = Object.freeze({ notFound: 44, isDirectory: 45, notDirectory: 46 })

/** A bind mount or volume given to the container at creation. */
export interface DockerMount {
  /** Host path (or volume name). */
  source: string
  /** Path in the container. */
  target: string
  readOnly?: boolean
}

export interface DockerContainerSpec {
  image: string
  name: string
  workdir: string
  env?: Record<string, string>
  mounts?: readonly DockerMount[]
  hardening?: ContextHardening
  /** `docker create --pull`; the engine's default (`missing`) when unset. */
  pull?: 'missing' | 'always' | 'never'
  /** Appended to `docker create` before the image, for flags this layer does not model. */
  extraArgs?: readonly string[]
}

function envFlags(env: Record<string, string> | undefined): string[] {
  // Always `KEY=value`: a bare `-e KEY` would copy the host's value instead.
  return Object.entries(env ?? {}).flatMap(([key, value]) => ['-e', `${key}=${value}`])
}

export function hardeningFlags(hardening: ContextHardening | undefined): string[] {
  if (!hardening)
    return []
  const flags: string[] = []
  if (hardening.readOnlyRoot)
    flags.push('--read-only', '--tmpfs', '/tmp')
  if (hardening.network !== undefined)
    flags.push('--network', hardening.network)
  if (hardening.user !== undefined)
    flags.push('--user', hardening.user)
  if (hardening.memory !== undefined)
    flags.push('--memory', hardening.memory)
  if (hardening.cpus !== undefined)
    flags.push('--cpus', String(hardening.cpus))
  if (hardening.pidsLimit !== undefined)
    flags.push('--pids-limit', String(hardening.pidsLimit))
  if (hardening.dropCapabilities)
    flags.push('--cap-drop', 'ALL')
  if (hardening.noNewPrivileges)
    flags.push('--security-opt', 'no-new-privileges')
  return flags
}

/**
 * `docker create` for a long-lived container that idles until commands are
 * exec'd into it. `--init` reaps the zombies those commands leave behind.
 */
export function createContainerArgs(spec: DockerContainerSpec): string[] {
  const mounts = (spec.mounts ?? []).flatMap(mount =>
    ['--mount', `type=bind,source=${mount.source},target=${mount.target}${mount.readOnly ? ',readonly' : ''}`])
  return [
    'create',
    '--name',
    spec.name,
    '--label',
    `${CONTAINER_LABEL}=1`,
    '--init',
    ...(spec.pull ? ['--pull', spec.pull] : []),
    '-w',
    spec.workdir,
    ...envFlags(spec.env),
    ...mounts,
    ...hardeningFlags(spec.hardening),
    ...(spec.extraArgs ?? []),
    spec.image,
    'tail',
    '-f',
    '/dev/null',
  ]
}

export function startContainerArgs(name: string): string[] {
  return ['start', name]
}

export function removeContainerArgs(name: string): string[] {
  return ['rm', '-f', name]
}

/** Succeeds only when an engine answers. */
export function engineInfoArgs(): string[] {
  return ['info', '--format', '{{.ServerVersion}}']
}

export function copyInArgs(name: string, hostPath: string, containerPath: string): string[] {
  return ['cp', hostPath, `${name}:${containerPath}`]
}

export function copyOutArgs(name: string, containerPath: string, hostPath: string): string[] {
  return ['cp', `${name}:${containerPath}`, hostPath]
}

export interface ExecArgsOptions {
  command: string
  cwd: string
  execId: string
  env?: Record<string, string>
  /** Keep stdin open (`-i`); without it the command reads an empty stdin. */
  interactive?: boolean
}

export function execArgs(name: string, options: ExecArgsOptions): string[] {
  return [
    'exec',
    ...(options.interactive ? ['-i'] : []),
    '-w',
    options.cwd,
    '-e',
    `${EXEC_MARKER_VAR}=${options.execId}`,
    ...envFlags(options.env),
    name,
    'sh',
    '-c',
    options.command,
  ]
}

/**
 * Signal every process whose environment carries the marker of one command.
 * `$1` is the command id, `$2` the signal name (`TERM`, `KILL`). Reads
 * `/proc`, so it needs no `pkill`/`setsid` in the image.
 */
export const KILL_BY_MARKER_SCRIPT = [
  `marker="${EXEC_MARKER_VAR}=$1"`,
  'cd /proc || exit 0',
  'for pid in [0-9]*; do',
  '  [ "$pid" = "$$" ] && continue',
  '  if tr \'\\000\' \'\\n\' < "$pid/environ" 2>/dev/null | grep -qx "$marker"; then',
  '    kill -s "$2" "$pid" 2>/dev/null',
  '  fi',
  'done',
  'exit 0',
].join('\n')

export function killExecArgs(name: string, execId: string, signal: 'TERM' | 'KILL'): string[] {
  return ['exec', name, 'sh', '-c', KILL_BY_MARKER_SCRIPT, 'sh', execId, signal]
}

const { notFound, isDirectory, notDirectory } = FILE_SCRIPT_EXIT

/** In-container file scripts; each takes the absolute path as `$1`. */
export const FILE_SCRIPTS = Object.freeze({
  // `$2` bytes at most: a file under /proc reports size 0 and may never end.
  read: `[ -e "$1" ] || exit ${notFound}; [ -d "$1" ] && exit ${isDirectory}; [ -n "$2" ] && exec head -c "$2" -- "$1"; exec cat -- "$1"`,
  // Write-then-rename in the target's directory, so readers never see half a file.
  write: [
    'dir=$(dirname "$1")',
    'mkdir -p -- "$dir" || exit 1',
    `[ -d "$1" ] && exit ${isDirectory}`,
    'tmp="$dir/.$(basename "$1").$$.tmp"',
    'if cat > "$tmp" && mv -f -- "$tmp" "$1"; then exit 0; fi',
    'rm -f -- "$tmp"',
    'exit 1',
  ].join('\n'),
  stat: [
    `[ -e "$1" ] || exit ${notFound}`,
    'if [ -d "$1" ]; then t=directory; elif [ -f "$1" ]; then t=file; else t=other; fi',
    'printf \'%s %s\\n\' "$t" "$(stat -L -c \'%s %Y\' -- "$1")"',
  ].join('\n'),
  readDir: [
    `[ -e "$1" ] || exit ${notFound}`,
    `[ -d "$1" ] || exit ${notDirectory}`,
    'cd -- "$1" || exit 1',
    'for f in * .[!.]* ..?*; do',
    '  [ -e "$f" ] || [ -L "$f" ] || continue',
    '  if [ -L "$f" ]; then t=symlink; elif [ -d "$f" ]; then t=directory; elif [ -f "$f" ]; then t=file; else t=other; fi',
    '  printf \'%s/%s\\000\' "$t" "$f"',
    'done',
  ].join('\n'),
  mkdir: 'mkdir -p -- "$1"',
  remove: 'rm -rf -- "$1"',
})

export type FileScript = keyof typeof FILE_SCRIPTS

/** `docker exec` running one file script on `path` (and `read`'s byte cap); `write` reads the content from stdin. */
export function fileScriptArgs(name: string, script: FileScript, path: string, maxBytes?: number): string[] {
  const rest = maxBytes === undefined ? [] : [String(maxBytes)]
  return ['exec', ...(script === 'write' ? ['-i'] : []), name, 'sh', '-c', FILE_SCRIPTS[script], 'sh', path, ...rest]
}

const PERMISSION_DENIED = /permission denied/i
const WHITESPACE = /\s+/

/** Map a failed file script to the error a Node file call would have thrown. */
export function fileScriptError(exitCode: number | null, path: string, stderr: string): ContextFileError {
  const detail = stderr.trim() || undefined
  if (exitCode === notFound)
    return new ContextFileError('ENOENT', path)
  if (exitCode === isDirectory)
    return new ContextFileError('EISDIR', path)
  if (exitCode === notDirectory)
    return new ContextFileError('ENOTDIR', path)
  if (detail && PERMISSION_DENIED.test(detail))
    return new ContextFileError('EACCES', path, detail)
  return new ContextFileError('EIO', path, detail ?? `exit code ${exitCode}`)
}

/** Parse the `stat` script's `type size mtimeSeconds` line. */
export function parseStatOutput(output: string): FileStat {
  const [type, size, mtime] = output.trim().split(WHITESPACE)
  return {
    type: (type === 'file' || type === 'directory' ? type : 'other') satisfies FileType,
    size: Number(size) || 0,
    mtimeMs: (Number(mtime) || 0) * 1000,
  }
}

/** Parse the `readDir` script's NUL-separated `type/name` records. */
export function parseReadDirOutput(output: string): DirEntry[] {
  return output.split('\0').filter(Boolean).map((record) => {
    const slash = record.indexOf('/')
    const type = record.slice(0, slash)
    return {
      name: record.slice(slash + 1),
      type: (['file', 'directory', 'symlink'].includes(type) ? type : 'other') as FileType,
    }
  })
}
