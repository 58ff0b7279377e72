import type { BehaviorPolicy } from './policy'
import { fileToolBehaviorOf } from '../tools/file-behavior'
import { joinPath } from '../tools/file-content'
import { contentHash, noteShellCommand, recordRead } from '../tools/read-state'
import { parseShellReads } from './shell-read-parser'

/** The footer the shell tool ends a command that exited 0 with. */
const EXIT_ZERO = /\n\[exit code 0 · [^\]\n]*\]$/

function shellCommandOf(input: Record<string, unknown>): string | undefined {
  return typeof input.command === 'string' && input.run_in_background !== true ? input.command : undefined
}

/**
 * `trackShellReads`: with `requireReadBeforeEdit` on, a file the model read
 * with a plain `cat` / `head` / `tail` / `nl` / `sed -n '…p'` counts as read,
 * so the edit guard does not send it back to `read_file` for bytes it has
 * seen. Entries are recorded as `shell` reads, which `read_file` never
 * dedups against (the model saw the shell's rendering, not `read_file`'s).
 * Every shell command is also noted, so a later drift refusal can name it as
 * the likely writer.
 */
export const trackShellReads: BehaviorPolicy = {
  name: 'track-shell-reads',
  attach(ctx) {
    const settings = fileToolBehaviorOf(ctx.behavior)
    const session = ctx.run.session
    if (!settings.requireReadBeforeEdit || !settings.trackShellReads || !session)
      return
    const execution = ctx.run.execution

    return ctx.hooks.hook('tool:after', async (after) => {
      if (after.name !== 'shell')
        return
      const command = shellCommandOf(after.input)
      if (command === undefined)
        return
      noteShellCommand(session, command)
      if (after.isError || typeof after.result !== 'string' || !EXIT_ZERO.test(after.result))
        return
      const reads = parseShellReads(command)
      if (!reads)
        return
      for (const file of reads.files) {
        const relative = reads.cwd === undefined ? file : joinPath(reads.cwd, file)
        const path = execution.resolvePath(relative)
        // Hashed now, after the command: it only read, so these are the bytes it showed.
        const bytes = await execution.readFile(path).catch(() => undefined)
        if (bytes)
          recordRead(session, { path, hash: contentHash(bytes), source: 'shell' })
      }
    })
  },
}
