import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createDockerContext } from '../../src/contexts/docker'
import { isNotFoundError } from '../../src/contexts/errors'
import { eventually, isRunning, tempDirs } from './support'

/**
 * No engine runs here, so these tests drive the docker context's runtime
 * through a stand-in `docker` executable: a sh script that records each
 * invocation and runs `exec` on the host (container paths are host paths).
 * What is real: the argv the context builds, its quoting through a shell,
 * exit-code mapping, the in-container kill by marker, tasks and their logs.
 */
const tempDir = tempDirs('docker-runtime')
const contexts: { destroy: () => Promise<void> }[] = []
afterAll(async () => {
  await Promise.all(contexts.map(context => context.destroy()))
})

function standInDocker(options: { failFirstStart?: boolean } = {}): { binary: string, calls: () => string[], flag?: string } {
  const dir = tempDir()
  const log = join(dir, 'calls.log')
  const binary = join(dir, 'docker')
  // The first `start` fails and leaves this file; later ones succeed.
  const flag = options.failFirstStart ? join(dir, 'start-failed') : undefined
  writeFileSync(log, '')
  writeFileSync(binary, [
    '#!/bin/sh',
    `printf '%s\\n' "$*" >> '${log}'`,
    'cmd="$1"; shift',
    ...(flag ? [`if [ "$cmd" = start ] && [ ! -e '${flag}' ]; then : > '${flag}'; echo 'cannot start' >&2; exit 1; fi`] : []),
    'case "$cmd" in',
    '  create|start|rm|info) exit 0 ;;',
    '  cp) exec cp -R "$(printf %s "$1" | sed "s/^[^:/]*://")" "$(printf %s "$2" | sed "s/^[^:/]*://")" ;;',
    '  exec)',
    '    dir=/',
    '    while [ $# -gt 0 ]; do',
    '      case "$1" in',
    '        -i) shift ;;',
    '        -w) dir="$2"; shift 2 ;;',
    '        -e) export "$2"; shift 2 ;;',
    '        *) break ;;',
    '      esac',
    '    done',
    '    shift',
    '    cd "$dir" || exit 126',
    '    exec "$@" ;;',
    'esac',
    'exit 1',
  ].join('\n'))
  chmodSync(binary, 0o755)
  return { binary, flag, calls: () => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) }
}

function dockerContext(options: { failFirstStart?: boolean } = {}) {
  const docker = standInDocker(options)
  const workdir = join(tempDir(), 'workspace')
  const context = createDockerContext({ image: 'alpine:3.20', name: 'box', workdir, docker: docker.binary, env: { FROM_CREATE: '1' }, killGraceMs: 300 })
  contexts.push(context)
  return { context, workdir, calls: docker.calls, flag: docker.flag }
}

describe('docker context runtime (stand-in CLI)', () => {
  it('creates and starts the container once, then makes the workdir', async () => {
    const { context, workdir, calls } = dockerContext()
    await Promise.all([context.spawn(), context.spawn()])
    const seen = calls()
    expect(seen[0]).toMatch(/^create --name box --label dev\.zidane\.context=1 --init -w \S+ -e FROM_CREATE=1 alpine:3\.20 tail -f \/dev\/null$/)
    expect(seen[1]).toBe('start box')
    expect(seen[2]).toContain(`box sh -c mkdir -p -- "$1" sh ${workdir}`)
    expect(seen).toHaveLength(3)
  })

  // A failed start was kept for good; a retry must also clear what the failed attempt created (the name is taken).
  it('starts again after a failed start, removing the half-made container first', async () => {
    const { context, calls, flag } = dockerContext({ failFirstStart: true })
    await expect(context.spawn()).rejects.toThrow(/docker start failed/)
    expect(existsSync(flag!)).toBe(true)
    await context.spawn()
    const seen = calls()
    expect(seen.map(call => call.split(' ')[0])).toEqual(['create', 'start', 'rm', 'create', 'start', 'exec'])
    expect(seen[2]).toBe('rm -f box')
  })

  it('readFile stops at the byte cap inside the container (procfs files report 0 bytes)', async () => {
    const { context } = dockerContext()
    await context.writeFile('f.txt', '0123456789')
    expect(new TextDecoder().decode(await context.readFile('f.txt', { maxBytes: 10 }))).toBe('0123456789')
    await expect(context.readFile('f.txt', { maxBytes: 9 })).rejects.toMatchObject({ code: 'EFBIG' })
    await expect(context.readFile('/proc/self/pagemap', { maxBytes: 64 * 1024 })).rejects.toMatchObject({ code: 'EFBIG' })
  })

  it('execs in the workdir with env, combined output and the exit code', async () => {
    const { context, workdir } = dockerContext()
    const result = await context.exec('pwd; echo "$GREETING" 1>&2; exit 7', { env: { GREETING: 'hi there' } })
    expect(result).toMatchObject({ output: `${workdir}\nhi there\n`, exitCode: 7, timedOut: false, aborted: false })
    expect((await context.exec('cat', { stdin: 'from stdin' })).output).toBe('from stdin')
  })

  it('a timeout kills the command inside the container, children included', async () => {
    const { context, calls } = dockerContext()
    const result = await context.exec('sleep 30 & echo "$!"; sleep 30 & echo "$!"; wait', { timeoutMs: 400 })
    expect(result.timedOut).toBe(true)
    // The stand-in's host shell may add a "Terminated" line; the real client would not.
    const pids = result.output.split('\n').filter(line => /^\d+$/.test(line)).map(Number)
    expect(pids).toHaveLength(2)
    await eventually(() => pids.every(pid => !isRunning(pid)))
    expect(calls().some(call => call.startsWith('exec box sh -c marker='))).toBe(true)
  })

  it('reads, writes, stats, lists and removes through the file scripts', async () => {
    const { context, workdir } = dockerContext()
    await context.writeFile('dir/f.txt', 'héllo')
    expect(readFileSync(join(workdir, 'dir/f.txt'), 'utf8')).toBe('héllo')
    expect(new TextDecoder().decode(await context.readFile('dir/f.txt'))).toBe('héllo')
    expect(await context.stat('dir/f.txt')).toMatchObject({ type: 'file', size: 6 })
    expect(await context.stat('missing')).toBeUndefined()
    expect(await context.readDir('dir')).toEqual([{ name: 'f.txt', type: 'file' }])
    expect(isNotFoundError(await context.readFile('missing').catch((error: unknown) => error))).toBe(true)
    await context.remove('dir')
    expect(await context.stat('dir')).toBeUndefined()
  })

  it('runs background tasks with their log written by a process inside the container', async () => {
    const { context, workdir } = dockerContext()
    const task = await context.tasks!.start({ command: 'echo one; echo two', logDir: 'tasks' })
    expect(task.logPath).toBe(join(workdir, 'tasks', `${task.id}.log`))
    expect(await task.wait()).toMatchObject({ status: 'exited', exitCode: 0 })
    expect(readFileSync(task.logPath, 'utf8')).toBe('one\ntwo\n')
  })

  it('copies in and out with docker cp, and destroy removes the container', async () => {
    const { context, workdir, calls } = dockerContext()
    const hostFile = join(tempDir(), 'seed.txt')
    writeFileSync(hostFile, 'seed')
    await context.copyIn(hostFile, 'seed.txt')
    expect(readFileSync(join(workdir, 'seed.txt'), 'utf8')).toBe('seed')
    await context.destroy()
    expect(calls().at(-1)).toBe('rm -f box')
  })

  it('reports docker capabilities from its hardening', () => {
    const offline = createDockerContext({ image: 'alpine', hardening: { network: 'none' } })
    expect(offline.capabilities).toEqual({ exec: true, execStream: true, files: true, detachedTasks: 'ephemeral', network: false })
    expect(offline.containerName).toMatch(/^zidane-[\da-f-]{12}$/)
  })
})
