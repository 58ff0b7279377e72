import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isNotFoundError } from '../../src/contexts/errors'
import { createProcessContext } from '../../src/contexts/process'
import { eventually, isRunning, tempDirs } from './support'

const tempDir = tempDirs('process-context')
const contexts: { destroy: () => Promise<void> }[] = []
afterAll(async () => {
  await Promise.all(contexts.map(context => context.destroy()))
})

function context(options: Parameters<typeof createProcessContext>[0] = {}) {
  const created = createProcessContext({ cwd: tempDir(), killGraceMs: 500, ...options })
  contexts.push(created)
  return created
}

/** Start a command that prints the pids of two sleeping children, and return them once printed. */
function twoSleepers() {
  return `sleep 30 & echo "$!"; sleep 30 & echo "$!"; wait`
}

describe('process context: exec', () => {
  it('returns combined output, exit code and duration', async () => {
    const ctx = context()
    const result = await ctx.exec('echo out; echo err 1>&2; exit 3')
    expect(result.exitCode).toBe(3)
    expect(result.signal).toBeNull()
    expect(result.output).toContain('out\n')
    expect(result.output).toContain('err\n')
    expect(result.timedOut).toBe(false)
    expect(result.aborted).toBe(false)
    expect(result.truncatedBytes).toBe(0)
    expect(result.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('keeps stdout and stderr in arrival order', async () => {
    const ctx = context()
    const result = await ctx.exec('echo 1; sleep 0.05; echo 2 1>&2; sleep 0.05; echo 3; sleep 0.05; echo 4 1>&2')
    expect(result.output).toBe('1\n2\n3\n4\n')
  })

  it('runs in the context cwd by default, a relative cwd resolves against it, env is merged', async () => {
    const ctx = context({ env: { ZIDANE_BASE: 'base' } })
    await ctx.mkdir('sub')
    const result = await ctx.exec('pwd; echo "$ZIDANE_BASE $ZIDANE_CALL"', { cwd: 'sub', env: { ZIDANE_CALL: 'call' } })
    expect(result.output).toBe(`${join(ctx.cwd, 'sub')}\nbase call\n`)
  })

  it('feeds stdin and otherwise gives an empty stdin (no hang on a read)', async () => {
    const ctx = context()
    expect((await ctx.exec('cat', { stdin: 'piped' })).output).toBe('piped')
    const empty = await ctx.exec('read line; echo "got:$line"')
    expect(empty.output).toBe('got:\n')
  })

  it('caps what it keeps and counts the dropped bytes', async () => {
    const ctx = context()
    const result = await ctx.exec('head -c 100000 /dev/zero | tr "\\0" a; printf END', { maxOutputBytes: 1000 })
    expect(Buffer.byteLength(result.output)).toBe(1000)
    expect(result.output.endsWith('aEND')).toBe(true)
    expect(result.truncatedBytes).toBe(100003 - 1000)
  })

  it('a timeout kills the whole process group, children included', async () => {
    const ctx = context()
    const result = await ctx.exec(twoSleepers(), { timeoutMs: 300 })
    expect(result.timedOut).toBe(true)
    const pids = result.output.trim().split('\n').map(Number)
    expect(pids).toHaveLength(2)
    await eventually(() => pids.every(pid => !isRunning(pid)))
  })

  it('an abort kills the whole process group', async () => {
    const ctx = context()
    const controller = new AbortController()
    const pending = ctx.exec(twoSleepers(), { signal: controller.signal })
    setTimeout(() => controller.abort(), 300)
    const result = await pending
    expect(result.aborted).toBe(true)
    const pids = result.output.trim().split('\n').map(Number)
    expect(pids).toHaveLength(2)
    await eventually(() => pids.every(pid => !isRunning(pid)))
  })

  it('does not start a command when the signal is already aborted', async () => {
    const ctx = context()
    const result = await ctx.exec('touch should-not-exist', { signal: AbortSignal.abort() })
    expect(result.aborted).toBe(true)
    expect(existsSync(join(ctx.cwd, 'should-not-exist'))).toBe(false)
  })

  it('returns when the command exits even if a child it backgrounded holds the output open; destroy reaches that child', async () => {
    const ctx = createProcessContext({ cwd: tempDir(), killGraceMs: 500 })
    const result = await ctx.exec('sleep 30 & echo "$!"')
    const pid = Number(result.output.trim())
    expect(result.exitCode).toBe(0)
    expect(isRunning(pid)).toBe(true)
    await ctx.destroy()
    await eventually(() => !isRunning(pid))
  })

  it('rejects with a clear error when the working directory is missing', async () => {
    const ctx = context()
    await expect(ctx.exec('true', { cwd: 'missing/dir' })).rejects.toThrow(/working directory .*missing\/dir/)
  })
})

describe('process context: execStream', () => {
  it('streams stdin to stdout and reports the exit', async () => {
    const ctx = context()
    const handle = await ctx.execStream('cat; echo done 1>&2')
    const out: Buffer[] = []
    const err: Buffer[] = []
    handle.stdout.on('data', chunk => out.push(chunk))
    handle.stderr.on('data', chunk => err.push(chunk))
    handle.stdin.write('line 1\n')
    handle.stdin.end('line 2\n')
    const exit = await handle.wait()
    expect(exit.exitCode).toBe(0)
    expect(Buffer.concat(out).toString()).toBe('line 1\nline 2\n')
    expect(Buffer.concat(err).toString()).toBe('done\n')
    expect(handle.pid).toBeGreaterThan(0)
  })

  it('kill ends the group', async () => {
    const ctx = context()
    const handle = await ctx.execStream(twoSleepers())
    let printed = ''
    handle.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString()
    })
    const pids = await eventually(() => {
      const found = printed.trim().split('\n').filter(Boolean).map(Number)
      return found.length === 2 ? found : undefined
    })
    handle.kill()
    const exit = await handle.wait()
    expect(exit.signal).toBe('SIGTERM')
    await eventually(() => pids.every(pid => !isRunning(pid)))
  })
})

describe('process context: files', () => {
  it('writes atomically (no temp file left), reads bytes back, creates parents', async () => {
    const ctx = context()
    await ctx.writeFile('a/b/c.txt', 'héllo')
    expect(readFileSync(join(ctx.cwd, 'a/b/c.txt'), 'utf8')).toBe('héllo')
    expect(readdirSync(join(ctx.cwd, 'a/b'))).toEqual(['c.txt'])
    expect(new TextDecoder().decode(await ctx.readFile('a/b/c.txt'))).toBe('héllo')
    await ctx.writeFile(join(ctx.cwd, 'a/b/c.txt'), new Uint8Array([0, 1, 2]))
    expect([...await ctx.readFile('a/b/c.txt')]).toEqual([0, 1, 2])
  })

  it('stats files and directories and reports missing paths as undefined', async () => {
    const ctx = context()
    writeFileSync(join(ctx.cwd, 'f.txt'), '12345')
    expect(await ctx.stat('f.txt')).toMatchObject({ type: 'file', size: 5 })
    expect(await ctx.stat('.')).toMatchObject({ type: 'directory' })
    expect(await ctx.stat('nope')).toBeUndefined()
  })

  it('lists, makes and removes directories', async () => {
    const ctx = context()
    await ctx.mkdir('d/e')
    await ctx.mkdir('d/e')
    await ctx.writeFile('d/f.txt', 'x')
    const entries = await ctx.readDir('d')
    expect(entries.sort((a, b) => a.name.localeCompare(b.name))).toEqual([{ name: 'e', type: 'directory' }, { name: 'f.txt', type: 'file' }])
    await ctx.remove('d')
    await ctx.remove('d')
    expect(await ctx.stat('d')).toBeUndefined()
  })

  it('reports a missing file with code ENOENT', async () => {
    const ctx = context()
    const error = await ctx.readFile('missing.txt').catch((caught: unknown) => caught)
    expect(isNotFoundError(error)).toBe(true)
  })

  it('resolves relative paths against cwd and leaves absolute ones alone', () => {
    const ctx = context()
    expect(ctx.resolvePath('x/y')).toBe(join(ctx.cwd, 'x/y'))
    expect(ctx.resolvePath('/etc/hosts')).toBe('/etc/hosts')
  })
})

describe('process context: lifecycle', () => {
  it('spawn is idempotent and fails for a cwd that is not a directory', async () => {
    const ctx = context()
    await Promise.all([ctx.spawn(), ctx.spawn()])
    const file = join(tempDir(), 'file')
    writeFileSync(file, '')
    await expect(createProcessContext({ cwd: file }).spawn()).rejects.toThrow(/not a directory/)
  })

  it('reports its capabilities', () => {
    expect(context().capabilities).toEqual({ exec: true, execStream: true, files: true, detachedTasks: 'ephemeral', network: true })
  })

  it('is unusable after destroy, and destroy twice is fine', async () => {
    const ctx = createProcessContext({ cwd: tempDir() })
    await ctx.destroy()
    await ctx.destroy()
    await expect(ctx.exec('true')).rejects.toThrow(/destroyed/)
  })
})
