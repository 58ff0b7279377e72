import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createProcessContext } from '../../src/contexts'
import { trackShellReads } from '../../src/policies/track-shell-reads'
import { createSession } from '../../src/session'
import { runPolicyScript } from '../../src/testing'
import { contentHash, readStateOf } from '../../src/tools/read-state'

let dir = ''
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'zidane-shell-reads-'))
  writeFileSync(join(dir, 'a.txt'), 'alpha\n')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const shell = (command: string, result: string, isError = false) => ({ phase: 'result' as const, call: { name: 'shell', input: { command } }, result, isError })
const OK = 'alpha\n\n[exit code 0 · 3 ms]'

describe('track-shell-reads', () => {
  it('needs requireReadBeforeEdit and a session (trackShellReads defaults on)', async () => {
    const session = await createSession()
    expect((await runPolicyScript(trackShellReads, { session, steps: [] })).enabled).toBe(false)
    expect((await runPolicyScript(trackShellReads, { behavior: { requireReadBeforeEdit: true }, steps: [] })).enabled).toBe(false)
    expect((await runPolicyScript(trackShellReads, { behavior: { requireReadBeforeEdit: true, trackShellReads: false }, session, steps: [] })).enabled).toBe(false)
    expect((await runPolicyScript(trackShellReads, { behavior: { requireReadBeforeEdit: true }, session, steps: [] })).enabled).toBe(true)
  })

  it('records a file a plain cat showed as a shell read, and leaves the result as it was', async () => {
    const session = await createSession()
    const { steps } = await runPolicyScript(trackShellReads, {
      behavior: { requireReadBeforeEdit: true },
      session,
      execution: createProcessContext({ cwd: dir }),
      steps: [shell('cat a.txt', OK)],
    })
    expect(steps[0]).toMatchObject({ phase: 'result', result: OK, isError: false })
    const entry = readStateOf(session).get(join(dir, 'a.txt'))
    expect(entry).toMatchObject({ source: 'shell', hash: contentHash('alpha\n') })
  })

  it('records nothing for a failed command, a non-zero exit, a background command or a command that is not a plain read', async () => {
    const session = await createSession()
    await runPolicyScript(trackShellReads, {
      behavior: { requireReadBeforeEdit: true },
      session,
      execution: createProcessContext({ cwd: dir }),
      steps: [
        shell('cat a.txt', OK, true),
        shell('cat a.txt', 'alpha\n\n[exit code 1 · 3 ms]'),
        { phase: 'result', call: { name: 'shell', input: { command: 'cat a.txt', run_in_background: true } }, result: OK },
        shell('cat a.txt | sort', OK),
        { phase: 'result', call: { name: 'read_file', input: { path: 'a.txt' } }, result: OK },
      ],
    })
    expect(readStateOf(session).size).toBe(0)
  })
})
