import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  CONTAINER_LABEL,
  copyInArgs,
  copyOutArgs,
  createContainerArgs,
  EXEC_MARKER_VAR,
  execArgs,
  FILE_SCRIPT_EXIT,
  fileScriptArgs,
  fileScriptError,
  hardeningFlags,
  killExecArgs,
  parseReadDirOutput,
  parseStatOutput,
  removeContainerArgs,
  startContainerArgs,
} from '../../src/contexts/docker-commands'
import { createProcessContext } from '../../src/contexts/process'
import { quoteShellArg, quoteShellCommand } from '../../src/contexts/shell-quote'
import { eventually, isRunning, tempDirs } from './support'

const tempDir = tempDirs('docker-commands')
const host = createProcessContext({ cwd: tempDir(), killGraceMs: 300 })
afterAll(() => host.destroy())

/** The part of a `docker exec` argv that would run inside the container (after the container name). */
function inContainer(args: string[], name = 'box'): string[] {
  return args.slice(args.indexOf(name) + 1)
}

/** Run the in-container part on the host: the scripts are plain POSIX sh. */
function runHere(args: string[], stdin?: string) {
  return host.exec(quoteShellCommand(inContainer(args)), { stdin })
}

describe('docker argv builders', () => {
  it('creates a labelled, init-reaped container idling in its workdir', () => {
    expect(createContainerArgs({ image: 'node:20', name: 'box', workdir: '/workspace' })).toEqual([
      'create',
      '--name',
      'box',
      '--label',
      `${CONTAINER_LABEL}=1`,
      '--init',
      '-w',
      '/workspace',
      'node:20',
      'tail',
      '-f',
      '/dev/null',
    ])
  })

  it('adds pull policy, env, mounts, hardening and extra flags before the image', () => {
    const args = createContainerArgs({
      image: 'alpine',
      name: 'box',
      workdir: '/w',
      pull: 'never',
      env: { A: '1', B: 'x y' },
      mounts: [{ source: '/host/src', target: '/w', readOnly: true }],
      hardening: { network: 'none', readOnlyRoot: true },
      extraArgs: ['--hostname', 'agent'],
    })
    expect(args.slice(args.indexOf('alpine'))).toEqual(['alpine', 'tail', '-f', '/dev/null'])
    expect(args).toContain('--pull')
    expect(args.join(' ')).toContain('-e A=1 -e B=x y')
    expect(args).toContain('type=bind,source=/host/src,target=/w,readonly')
    expect(args.join(' ')).toContain('--network none')
    expect(args.join(' ')).toContain('--hostname agent')
  })

  it('maps every hardening field to its flag', () => {
    expect(hardeningFlags({
      readOnlyRoot: true,
      network: 'none',
      user: '1000:1000',
      memory: '512m',
      cpus: 1.5,
      pidsLimit: 256,
      dropCapabilities: true,
      noNewPrivileges: true,
    })).toEqual([
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--network',
      'none',
      '--user',
      '1000:1000',
      '--memory',
      '512m',
      '--cpus',
      '1.5',
      '--pids-limit',
      '256',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
    ])
    expect(hardeningFlags(undefined)).toEqual([])
  })

  it('builds start, rm -f and cp', () => {
    expect(startContainerArgs('box')).toEqual(['start', 'box'])
    expect(removeContainerArgs('box')).toEqual(['rm', '-f', 'box'])
    expect(copyInArgs('box', './src', '/w/src')).toEqual(['cp', './src', 'box:/w/src'])
    expect(copyOutArgs('box', '/w/out', './out')).toEqual(['cp', 'box:/w/out', './out'])
  })

  it('execs with the marker variable, env as KEY=value, and -i only when stdin is used', () => {
    const args = execArgs('box', { command: 'npm test', cwd: '/w', execId: 'id-1', env: { CI: '1' } })
    expect(args).toEqual(['exec', '-w', '/w', '-e', `${EXEC_MARKER_VAR}=id-1`, '-e', 'CI=1', 'box', 'sh', '-c', 'npm test'])
    expect(execArgs('box', { command: 'cat', cwd: '/', execId: 'x', interactive: true })[1]).toBe('-i')
    expect(fileScriptArgs('box', 'write', '/w/f')[1]).toBe('-i')
    expect(fileScriptArgs('box', 'read', '/w/f')[1]).toBe('box')
  })
})

describe('shell quoting', () => {
  it('leaves plain words alone and single-quotes the rest', () => {
    expect(quoteShellArg('abc-1.2/x')).toBe('abc-1.2/x')
    expect(quoteShellArg('')).toBe('\'\'')
    expect(quoteShellArg('a b')).toBe('\'a b\'')
    expect(quoteShellArg('it\'s')).toBe('\'it\'\\\'\'s\'')
  })

  it('round-trips awkward arguments through a real shell', async () => {
    const awkward = ['$HOME', 'a "b" c', 'it\'s', '`date`', 'new\nline', '*']
    const result = await host.exec(quoteShellCommand(['printf', '%s|', ...awkward]))
    expect(result.output).toBe(`${awkward.join('|')}|`)
  })
})

describe('in-container file scripts, run on the host', () => {
  it('read: content, ENOENT and EISDIR through exit codes', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'f.txt'), 'hello')
    expect((await runHere(fileScriptArgs('box', 'read', join(dir, 'f.txt')))).output).toBe('hello')
    const missing = await runHere(fileScriptArgs('box', 'read', join(dir, 'nope')))
    expect(missing.exitCode).toBe(FILE_SCRIPT_EXIT.notFound)
    expect(fileScriptError(missing.exitCode, '/nope', '').code).toBe('ENOENT')
    const directory = await runHere(fileScriptArgs('box', 'read', dir))
    expect(fileScriptError(directory.exitCode, dir, '').code).toBe('EISDIR')
  })

  it('read: stops at the byte cap it is given, so /proc/self/pagemap (size 0, endless) ends', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'f.txt'), 'hello world')
    expect((await runHere(fileScriptArgs('box', 'read', join(dir, 'f.txt'), 5))).output).toBe('hello')
    const pagemap = await runHere(fileScriptArgs('box', 'read', '/proc/self/pagemap', 4096))
    expect(pagemap.exitCode).toBe(0)
    expect(pagemap.output.length).toBeLessThanOrEqual(4096)
  })

  it('write: creates parents, replaces through a temp file, leaves no temp behind', async () => {
    const dir = tempDir()
    const target = join(dir, 'a', 'b c', 'f.txt')
    const result = await runHere(fileScriptArgs('box', 'write', target), 'first')
    expect(result.exitCode).toBe(0)
    await runHere(fileScriptArgs('box', 'write', target), 'second')
    expect(readFileSync(target, 'utf8')).toBe('second')
    expect(readdirSync(join(dir, 'a', 'b c'))).toEqual(['f.txt'])
  })

  it('stat: type, size and mtime; missing paths exit with the not-found code', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'f.txt'), '12345')
    const file = await runHere(fileScriptArgs('box', 'stat', join(dir, 'f.txt')))
    const parsed = parseStatOutput(file.output)
    expect(parsed).toMatchObject({ type: 'file', size: 5 })
    expect(Math.abs(parsed.mtimeMs - Date.now())).toBeLessThan(120_000)
    expect(parseStatOutput((await runHere(fileScriptArgs('box', 'stat', dir))).output).type).toBe('directory')
    expect((await runHere(fileScriptArgs('box', 'stat', join(dir, 'nope')))).exitCode).toBe(FILE_SCRIPT_EXIT.notFound)
  })

  it('readDir: every entry with its type, dotfiles and odd names included', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'plain.txt'), '')
    writeFileSync(join(dir, '.hidden'), '')
    writeFileSync(join(dir, 'with space'), '')
    mkdirSync(join(dir, 'sub'))
    symlinkSync('plain.txt', join(dir, 'link'))
    const result = await runHere(fileScriptArgs('box', 'readDir', dir))
    const entries = parseReadDirOutput(result.output).sort((a, b) => a.name.localeCompare(b.name))
    expect(entries).toEqual([
      { name: '.hidden', type: 'file' },
      { name: 'link', type: 'symlink' },
      { name: 'plain.txt', type: 'file' },
      { name: 'sub', type: 'directory' },
      { name: 'with space', type: 'file' },
    ])
    expect(parseReadDirOutput((await runHere(fileScriptArgs('box', 'readDir', join(dir, 'sub')))).output)).toEqual([])
    const notDir = await runHere(fileScriptArgs('box', 'readDir', join(dir, 'plain.txt')))
    expect(fileScriptError(notDir.exitCode, 'plain.txt', '').code).toBe('ENOTDIR')
  })

  it('mkdir and remove are recursive and idempotent', async () => {
    const dir = tempDir()
    const nested = join(dir, 'x', 'y')
    expect((await runHere(fileScriptArgs('box', 'mkdir', nested))).exitCode).toBe(0)
    expect((await runHere(fileScriptArgs('box', 'mkdir', nested))).exitCode).toBe(0)
    expect((await runHere(fileScriptArgs('box', 'remove', join(dir, 'x')))).exitCode).toBe(0)
    expect((await runHere(fileScriptArgs('box', 'remove', join(dir, 'x')))).exitCode).toBe(0)
    expect(readdirSync(dir)).toEqual([])
  })

  it('maps other failures to EACCES or EIO with the detail', () => {
    expect(fileScriptError(1, '/f', 'cat: /f: Permission denied').code).toBe('EACCES')
    const io = fileScriptError(1, '/f', 'disk on fire')
    expect(io.code).toBe('EIO')
    expect(io.message).toContain('disk on fire')
  })
})

describe('kill by marker, run on the host', () => {
  it('signals every process of one command (grandchildren included) and nothing else', async () => {
    const marked = await host.execStream('sleep 30 & echo "$!"; sleep 30 & echo "$!"; wait', { env: { [EXEC_MARKER_VAR]: 'target-id' } })
    const bystander = await host.execStream('sleep 30 & echo "$!"; wait', { env: { [EXEC_MARKER_VAR]: 'other-id' } })
    const pidsOf = (handle: typeof marked, count: number) => {
      let text = ''
      handle.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString()
      })
      return eventually(() => {
        const pids = text.trim().split('\n').filter(Boolean).map(Number)
        return pids.length === count ? pids : undefined
      })
    }
    const [targets, others] = await Promise.all([pidsOf(marked, 2), pidsOf(bystander, 1)])
    const result = await runHere(killExecArgs('box', 'target-id', 'TERM'))
    expect(result.exitCode).toBe(0)
    await eventually(() => targets.every(pid => !isRunning(pid)))
    expect((await marked.wait()).exitCode).not.toBe(0)
    expect(isRunning(others[0])).toBe(true)
    bystander.kill('SIGKILL')
  })
})
