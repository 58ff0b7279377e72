import type { BehaviorPolicy, ResultPhaseContext } from './policy'
import { fileToolBehaviorOf } from '../tools/file-behavior'
import { joinPath } from '../tools/file-content'
import { contentHash, noteShellCommand, recordRead } from '../tools/read-state'
import { parseShellReads } from './shell-read-parser'

/** The footer the shell tool ends a command that exited 0 with. */
const EXIT_ZERO = /\n\[exit code 0 · [^\]\n]*\]$/

function shellCommandOf(input: Readonly<Record<string, unknown>>): string | undefined {
  return typeof input.command === 'string' && input.run_in_background !== true ? input.command : undefined
}

/**
 * `trackShellReads`: with `requireReadBeforeEdit` on, a file the model read
 * with a plain `cat` / `head` / `tail` / `nl` / `sed -n '…p'` counts as read,
 * so the edit guard does not send it back to `read_file` for bytes it has
 * seen. Entries are recorded as `shell` reads, which `read_file` never
 * dedups against (the model saw the shell's rendering, not `read_file`'s).
 * Every shell command is also noted, so a later drift refusal can name it as
 * the likely writer. It observes results and decides nothing.
 */
export const trackShellReads: BehaviorPolicy<null> = {
  name: 'track-shell-reads',
  enabled(behavior, run) {
    const settings = fileToolBehaviorOf(behavior)
    return settings.requireReadBeforeEdit && settings.trackShellReads && run.session !== undefined
  },
  // Synchronous unless a read is to be hashed: a promise would make the runner race it against the run's signal for every call.
  result({ run, call, result, isError }) {
    const session = run.session
    if (call.name !== 'shell' || !session)
      return
    const command = shellCommandOf(call.input)
    if (command === undefined)
      return
    noteShellCommand(session, command)
    if (isError || typeof result !== 'string' || !EXIT_ZERO.test(result))
      return
    const reads = parseShellReads(command)
    if (!reads)
      return
    return recordShellReads(run, session, reads)
  },
}

/** Hash each file the command read, now, after it: it only read, so these are the bytes it showed. */
async function recordShellReads(run: ResultPhaseContext<null>['run'], session: NonNullable<ResultPhaseContext<null>['run']['session']>, reads: NonNullable<ReturnType<typeof parseShellReads>>): Promise<undefined> {
  const execution = run.execution
  // `cat a a a …` names one file tens of thousands of times in a 128 KiB command: each is read and hashed once.
  for (const file of new Set(reads.files)) {
    const relative = reads.cwd === undefined ? file : joinPath(reads.cwd, file)
    const path = execution.resolvePath(relative)
    const bytes = await execution.readFile(path).catch(() => undefined)
    if (bytes)
      recordRead(session, { path, hash: contentHash(bytes), source: 'shell' })
  }
  return undefined
}
