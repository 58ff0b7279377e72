import type { ToolDef } from '../../src/tools/types'
import { afterAll, describe, expect, it } from 'vitest'
import { createProcessContext } from '../../src/contexts/process'
import { createShellTool, shell } from '../../src/tools/shell'
import { tempDirs, toolContext } from '../contexts/support'

// The command, its timeout and what it prints are the model's. Output is capped while the command runs (a
// tail buffer in the context), a timeout or an abort kills the process group, and a child left holding the
// pipes does not hold the call (tests in shell.test.ts and test/contexts/process.test.ts, and below for the
// shapes of output a model can ask for). New here: a command with a NUL character, or too long for the
// system to start, got Node's own error (`The argument 'args[1]' must be a string without null bytes.
// Received …`, `spawn E2BIG`), which tells the model nothing it can act on.

const tempDir = tempDirs('shell-hostile')
const execution = createProcessContext({ cwd: tempDir(), killGraceMs: 200 })
afterAll(() => execution.destroy())

async function call(def: ToolDef, input: Record<string, unknown>): Promise<string> {
  const checked = def.validate!(input)
  if (!checked.ok)
    throw new Error(checked.error)
  return String(await def.execute(checked.value, toolContext({ execution })))
}

async function failure(def: ToolDef, input: Record<string, unknown>): Promise<string> {
  try {
    await call(def, input)
  }
  catch (error) {
    return (error as Error).message
  }
  throw new Error('expected the call to fail')
}

describe('shell: commands the system cannot start', () => {
  it('a NUL character in the command is an error result that says so', async () => {
    expect(await failure(shell, { command: 'echo a\0b' }))
      .toBe('The command contains a NUL character (\\0), which no command line can hold. Remove it; to print a NUL byte, use printf \'\\0\'.')
  })

  it('a command too long to pass to a new process is an error result that says what to do', async () => {
    const command = `echo ${'x'.repeat(200_000)} | wc -c`
    expect(await failure(shell, { command })).toBe(
      'Could not start the command: at 200013 bytes it is longer than the system passes to a new process '
      + '(at most 128 KiB for the command on Linux, less with a large environment). Write the script to a file and run that file instead.',
    )
    // Just under the per-argument limit still runs.
    expect(await call(shell, { command: `printf %s ${'x'.repeat(100_000)} | wc -c` })).toMatch(/^100000\n\[exit code 0 · /)
  })
})

describe('shell: output the model cannot bound', () => {
  const small = createShellTool({ maxOutputBytes: 1000 })

  it('one endless line without a newline keeps its last bytes and is killed at the timeout', async () => {
    const out = await call(small, { command: 'yes | tr -d \'\\n\'', timeout: 300 })
    const [marker, body, footer] = out.split('\n')
    expect(marker).toMatch(/^\[… \d+ bytes dropped …\]$/)
    expect(body).toBe('y'.repeat(1000))
    expect(footer).toMatch(/^\[timed out after 300 ms; the command and its child processes were killed · /)
  })

  it('bytes that are not UTF-8 come back as replacement characters', async () => {
    expect(await call(small, { command: 'printf \'\\377\\376abc\\200\'' })).toMatch(/^\uFFFD\uFFFDabc\uFFFD\n\[exit code 0 · /)
  })

  it('a background child that keeps the pipes open and writes without end does not hold the call', async () => {
    const out = await call(small, { command: '(yes &); echo started' })
    expect(out).toMatch(/\[exit code 0 · [^\]]+\]$/)
    expect(Buffer.byteLength(out.slice(0, out.lastIndexOf('\n[')))).toBeLessThanOrEqual(1000 + 40)
  })

  it('a command that closes its output and keeps running is waited for until it exits, then returns', async () => {
    expect(await call(small, { command: 'exec >&- 2>&-; sleep 0.2' })).toMatch(/^\(no output\)\n\[exit code 0 · /)
  })
})
