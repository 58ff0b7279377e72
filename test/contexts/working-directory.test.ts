import { mkdirSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src'
import { createProcessContext } from '../../src/contexts'
import { WorkingDirectoryError } from '../../src/errors'
import { scriptedProvider } from '../../src/testing'
import { shell } from '../../src/tools/shell'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'zidane-cwd-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function failure(promise: Promise<unknown>): Promise<WorkingDirectoryError> {
  const error = await promise.then(() => undefined, (thrown: unknown) => thrown)
  expect(error).toBeInstanceOf(WorkingDirectoryError)
  return error as WorkingDirectoryError
}

describe('an execution context whose working directory is unusable', () => {
  it('fails the first run with a WorkingDirectoryError naming the path, before the model is called', async () => {
    const missing = join(dir, 'not', 'there')
    const provider = scriptedProvider([{ text: 'never sent' }])
    const agent = createAgent({ provider, tools: { shell }, execution: createProcessContext({ cwd: missing }) })

    const error = await failure(agent.run({ prompt: 'list the files' }))
    expect(error).toMatchObject({ name: 'WorkingDirectoryError', code: 'ENOENT', path: missing })
    expect(error.message).toBe(`The execution context's working directory ${missing} does not exist`)
    expect(provider.requests).toHaveLength(0)
  })

  it('names a file given as the working directory (and a path through a file)', async () => {
    const file = join(dir, 'file.txt')
    writeFileSync(file, '')
    const agent = createAgent({ provider: scriptedProvider([]), tools: { shell }, execution: createProcessContext({ cwd: file }) })
    expect(await failure(agent.run({ prompt: 'go' }))).toMatchObject({ code: 'ENOTDIR', path: file, message: expect.stringContaining(`${file} is not a directory`) })

    const through = join(file, 'sub')
    const direct = createProcessContext({ cwd: through })
    expect(await failure(direct.exec('true'))).toMatchObject({ code: 'ENOTDIR', path: through })
  })

  it('starts on a later run once the directory exists', async () => {
    const later = join(dir, 'later')
    const provider = scriptedProvider([{ toolCalls: [{ name: 'shell', input: { command: 'pwd' } }] }, { text: 'done' }])
    const agent = createAgent({ provider, tools: { shell }, execution: createProcessContext({ cwd: later }) })
    await failure(agent.run({ prompt: 'go' }))

    mkdirSync(later)
    const stats = await agent.run({ prompt: 'go' })
    expect(stats.text).toBe('done')
    const result = provider.requests[1].messages.at(-1)!.content[0] as { output: string }
    expect(result.output).toContain(later)
    await agent.destroy()
  })
})
