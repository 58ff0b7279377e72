/**
 * Quote arguments for a POSIX shell. Contexts take command strings (that is
 * what a model writes), so anything built from argv (the docker CLI, a log
 * writer) is quoted here instead of trusting the values to be plain.
 */

const SAFE = /^[\w@%+=:,./-]+$/

/** One argument, single-quoted unless it is made only of characters no shell treats specially. */
export function quoteShellArg(value: string): string {
  if (value !== '' && SAFE.test(value))
    return value
  return `'${value.replaceAll('\'', `'\\''`)}'`
}

/** Join an argument vector into one POSIX shell command line, quoting each argument so the shell passes it through unchanged. */
export function quoteShellCommand(argv: readonly string[]): string {
  return argv.map(quoteShellArg).join(' ')
}
