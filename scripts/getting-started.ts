// The README's "Getting started" section as data, so the tests can follow it
// exactly: the set-up commands, the program, the commands that run it, and
// the output the README says to expect.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface GettingStarted {
  /** The first ```sh fence: from an empty folder to a project ready for the program. */
  setup: string
  /** The ```ts fence: the program, saved as `file`. */
  program: string
  /** The file name the README tells the reader to save the program as. */
  file: string
  /** The second ```sh fence: the commands that check and run the program, comments removed. */
  run: string[]
  /** The ```text fence: what the last of `run` prints, offline. */
  output: string
}

const HEADING = '\n## Getting started\n'
const SAVE_AS = /Save this as\s+`([^`]+)`/
const COMMENT = /\s+#.*$/

/** Every fence of one language in `text`, in order. */
function fences(text: string, language: string): string[] {
  return Array.from(text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g')), match => match[1])
}

export function readGettingStarted(root: string): GettingStarted {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const start = readme.indexOf(HEADING)
  if (start < 0)
    throw new Error('README.md has no "## Getting started" section')
  const section = readme.slice(start, readme.indexOf('\n## ', start + HEADING.length))
  const [setup, run] = fences(section, 'sh')
  const [program] = fences(section, 'ts')
  const [output] = fences(section, 'text')
  const file = SAVE_AS.exec(section)?.[1]
  if (setup === undefined || run === undefined || program === undefined || output === undefined || file === undefined)
    throw new Error('"Getting started" needs two ```sh fences, a ```ts fence, a ```text fence and "Save this as `file`"')
  return {
    setup,
    program,
    file,
    run: run.split('\n').map(line => line.replace(COMMENT, '').trim()).filter(Boolean),
    output,
  }
}
