import type { SandboxProvider } from '../../src/contexts/sandbox'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { rename } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isNotFoundError } from '../../src/contexts/errors'
import { createProcessContext } from '../../src/contexts/process'
import { createSandboxContext } from '../../src/contexts/sandbox'
import { eventually, isRunning, tempDirs } from './support'

const tempDir = tempDirs('sandbox')
const destroyables: { destroy: () => Promise<void> }[] = []
afterAll(async () => {
  await Promise.all(destroyables.map(item => item.destroy()))
})

/**
 * A provider that really runs commands: it hosts the "sandbox" in a temp
 * directory through a process context, reporting stdout and stderr apart as
 * a remote API would. It records what the adapter asked of it.
 */
function tempDirProvider(options: { streaming?: boolean, rename?: boolean } = {}) {
  const root = tempDir()
  const inner = createProcessContext({ cwd: root, killGraceMs: 300 })
  const calls: string[] = []
  const provider: SandboxProvider = {
    name: 'temp-dir',
    workdir: root,
    capabilities: { network: false },
    hardening: { network: 'none' },
    create: async () => {
      calls.push('create')
    },
    exec: async (command, request) => {
      calls.push(`exec:${command}`)
      const result = await inner.exec(command, { cwd: request.cwd, env: request.env, timeoutMs: request.timeoutMs, signal: request.signal, stdin: request.stdin })
      return { stdout: result.output, exitCode: result.exitCode, signal: result.signal, timedOut: result.timedOut }
    },
    execStream: options.streaming === false ? undefined : (command, request) => inner.execStream(command, request),
    readFile: path => inner.readFile(path),
    writeFile: async (path, data) => {
      calls.push(`write:${path}`)
      const { writeFile } = await import('node:fs/promises')
      await writeFile(path, data)
    },
    rename: options.rename === false
      ? undefined
      : async (from, to) => {
        calls.push('rename')
        await rename(from, to)
      },
    stat: path => inner.stat(path),
    readDir: path => inner.readDir(path),
    mkdir: path => inner.mkdir(path),
    remove: path => inner.remove(path),
    destroy: async () => {
      calls.push('destroy')
      await inner.destroy()
    },
  }
  return { provider, calls, root }
}

function sandbox(options?: Parameters<typeof tempDirProvider>[0]) {
  const made = tempDirProvider(options)
  const context = createSandboxContext(made.provider)
  destroyables.push(context)
  return { ...made, context }
}

describe('sandbox context', () => {
  it('creates the sandbox once, on first use', async () => {
    const { context, calls } = sandbox()
    await Promise.all([context.exec('true'), context.exec('true'), context.spawn()])
    expect(calls.filter(call => call === 'create')).toHaveLength(1)
  })

  // A failed create was kept: every later call got the same rejection, though the docs said it was not remembered.
  it('tries create again after one that failed', async () => {
    const made = tempDirProvider()
    let failures = 1
    const provider: SandboxProvider = { ...made.provider, create: async (config) => {
      if (failures-- > 0)
        throw new Error('the service is busy')
      await made.provider.create(config)
    } }
    const context = createSandboxContext(provider)
    destroyables.push(context)
    await expect(context.spawn()).rejects.toThrow('the service is busy')
    expect((await context.exec('echo up')).output).toBe('up\n')
    expect(made.calls.filter(call => call === 'create')).toHaveLength(1)
  })

  it('passes readFile\'s byte cap to the provider and refuses a longer answer with EFBIG', async () => {
    const made = tempDirProvider()
    const asked: (number | undefined)[] = []
    // A provider that ignores the cap and returns the whole file.
    const provider: SandboxProvider = { ...made.provider, readFile: async (path, options) => {
      asked.push(options?.maxBytes)
      return made.provider.readFile(path)
    } }
    const context = createSandboxContext(provider)
    destroyables.push(context)
    await context.writeFile('f.txt', '0123456789')
    expect(new TextDecoder().decode(await context.readFile('f.txt', { maxBytes: 10 }))).toBe('0123456789')
    await expect(context.readFile('f.txt', { maxBytes: 4 })).rejects.toMatchObject({ code: 'EFBIG' })
    expect(asked).toEqual([10, 4])
  })

  it('reports the provider type, capabilities and hardening', () => {
    const { context } = sandbox()
    expect(context.type).toBe('temp-dir')
    expect(context.capabilities).toEqual({ exec: true, execStream: true, files: true, detachedTasks: 'ephemeral', network: false })
    expect(context.hardening).toEqual({ network: 'none' })
    const { context: plain } = sandbox({ streaming: false })
    expect(plain.capabilities).toMatchObject({ execStream: false, detachedTasks: 'none' })
    expect(plain.tasks).toBeUndefined()
  })

  it('runs commands in the workdir and caps output from a provider that returns it all', async () => {
    const { context, root } = sandbox()
    const result = await context.exec('pwd; exit 2')
    expect(result).toMatchObject({ output: `${root}\n`, exitCode: 2, timedOut: false, aborted: false })
    const big = await context.exec('head -c 5000 /dev/zero | tr "\\0" z', { maxOutputBytes: 100 })
    expect(big.output).toBe('z'.repeat(100))
    expect(big.truncatedBytes).toBe(4900)
  })

  it('passes timeouts through and an abort returns at once', async () => {
    const { context } = sandbox()
    expect((await context.exec('sleep 5', { timeoutMs: 200 })).timedOut).toBe(true)
    const controller = new AbortController()
    const pending = context.exec('sleep 5', { signal: controller.signal })
    setTimeout(() => controller.abort(), 100)
    expect((await pending).aborted).toBe(true)
  })

  it('writes atomically through a temp file and rename, or mv when the provider has no rename', async () => {
    const { context, calls, root } = sandbox()
    await context.writeFile('dir/file.txt', 'content')
    expect(readFileSync(join(root, 'dir/file.txt'), 'utf8')).toBe('content')
    expect(calls.find(call => call.startsWith('write:'))).toMatch(/dir\/\.file\.txt\.[\da-f]+\.tmp$/)
    expect(calls).toContain('rename')
    expect(readdirSync(join(root, 'dir'))).toEqual(['file.txt'])

    const noRename = sandbox({ rename: false })
    await noRename.context.writeFile('x.txt', 'via mv')
    expect(readFileSync(join(noRename.root, 'x.txt'), 'utf8')).toBe('via mv')
    expect(noRename.calls.some(call => call.startsWith('exec:mv -f'))).toBe(true)
  })

  it('resolves relative paths against the workdir for every file operation', async () => {
    const { context, root } = sandbox()
    expect(context.resolvePath('a/b')).toBe(join(root, 'a/b'))
    await context.mkdir('a')
    await context.writeFile('a/f', 'x')
    expect(await context.readDir('a')).toEqual([{ name: 'f', type: 'file' }])
    expect(await context.stat('a/f')).toMatchObject({ type: 'file', size: 1 })
    expect(new TextDecoder().decode(await context.readFile('a/f'))).toBe('x')
    await context.remove('a')
    expect(existsSync(join(root, 'a'))).toBe(false)
    expect(isNotFoundError(await context.readFile('a/f').catch((error: unknown) => error))).toBe(true)
  })

  it('runs background tasks through execStream, with the log written inside the sandbox', async () => {
    const { context, root } = sandbox()
    const task = await context.tasks!.start({ command: 'echo "$$"; echo hello; sleep 30', logDir: 'logs' })
    expect(task.logPath).toBe(join(root, 'logs', `${task.id}.log`))
    const pid = Number(await eventually(() => existsSync(task.logPath) && readFileSync(task.logPath, 'utf8').includes('hello') && readFileSync(task.logPath, 'utf8').split('\n')[0]))
    expect(isRunning(pid)).toBe(true)
    await context.tasks!.kill(task.id)
    await eventually(() => !isRunning(pid))
    expect((await context.tasks!.get(task.id))?.status).toBe('killed')
  })

  it('rejects execStream when the provider cannot stream', async () => {
    const { context } = sandbox({ streaming: false })
    await expect(context.execStream('true')).rejects.toThrow(/does not support streaming/)
  })

  it('destroy reaches the provider once and the context is unusable after', async () => {
    const { context, calls } = sandbox()
    await context.exec('true')
    await context.destroy()
    await context.destroy()
    expect(calls.filter(call => call === 'destroy')).toHaveLength(1)
    await expect(context.exec('true')).rejects.toThrow(/destroyed/)
  })
})
