import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createProcessContext } from '../../src/contexts'
import { blocksExistingWrite, writeFileExistingPolicy } from '../../src/policies/write-file-existing-policy'
import { runPolicyScript } from '../../src/testing'

let dir = ''
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'zidane-write-policy-'))
  writeFileSync(join(dir, 'exists.ts'), 'export {}\n')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const write = (path: unknown) => ({ phase: 'gateCall' as const, call: { name: 'write_file', input: { path, content: 'x' } } })

describe('write-file-existing-policy', () => {
  it('is off with the default allow', async () => {
    expect((await runPolicyScript(writeFileExistingPolicy, { steps: [] })).enabled).toBe(false)
  })

  it('blocks write_file to an existing file with the edit recipe, and lets new paths and other tools through', async () => {
    const { steps } = await runPolicyScript(writeFileExistingPolicy, {
      behavior: { writeFileExistingPolicy: 'block-with-edit-recipe' },
      execution: createProcessContext({ cwd: dir }),
      steps: [write('exists.ts'), write('new.ts'), write(''), { phase: 'gateCall', call: { name: 'edit', input: { path: 'exists.ts' } } }],
    })
    expect(steps[0]).toMatchObject({ phase: 'gateCall', decision: { type: 'block', reason: expect.stringContaining('exists.ts already exists') } })
    expect(steps.slice(1).map(step => step.phase === 'gateCall' ? step.decision : 'other')).toEqual([undefined, undefined, undefined])
  })

  it('leaves a call an earlier policy blocked as it was', async () => {
    const { steps } = await runPolicyScript(writeFileExistingPolicy, {
      behavior: { writeFileExistingPolicy: 'block-with-edit-recipe' },
      execution: createProcessContext({ cwd: dir }),
      steps: [{ ...write('exists.ts'), decided: { type: 'block', reason: 'not today' } }],
    })
    expect(steps[0]).toMatchObject({ decision: { type: 'block', reason: 'not today' } })
  })

  it('checks at run time: a file created by an earlier call of the same turn is seen', async () => {
    const execution = createProcessContext({ cwd: dir })
    const behavior = { writeFileExistingPolicy: 'block-with-edit-recipe' as const }
    const before = await runPolicyScript(writeFileExistingPolicy, { behavior, execution, steps: [write('later.ts')] })
    writeFileSync(join(dir, 'later.ts'), 'made by the first call')
    const after = await runPolicyScript(writeFileExistingPolicy, { behavior, execution, steps: [write('later.ts')] })
    expect(before.steps[0]).toMatchObject({ decision: undefined })
    expect(after.steps[0]).toMatchObject({ decision: { type: 'block' } })
  })

  it('path lists: deny wins over allow, allow over the mode', () => {
    expect(blocksExistingWrite({ mode: 'allow', denyPaths: ['src/**'] }, ['src/a.ts'])).toBe(true)
    expect(blocksExistingWrite({ mode: 'block-with-edit-recipe', allowPaths: ['docs/**'] }, ['docs/a.md'])).toBe(false)
    expect(blocksExistingWrite({ mode: 'block-with-edit-recipe', allowPaths: ['docs/**'], denyPaths: ['docs/**'] }, ['docs/a.md'])).toBe(true)
    expect(blocksExistingWrite('allow', ['a'])).toBe(false)
  })
})
