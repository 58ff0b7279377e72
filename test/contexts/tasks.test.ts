import type { TaskStallInfo } from '../../src/contexts/types'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createProcessContext } from '../../src/contexts/process'
import { eventually, isRunning, tempDirs } from './support'

const tempDir = tempDirs('tasks')
const contexts: { destroy: () => Promise<void> }[] = []
afterAll(async () => {
  await Promise.all(contexts.map(context => context.destroy()))
})

function setup() {
  const ctx = createProcessContext({ cwd: tempDir(), killGraceMs: 500 })
  contexts.push(ctx)
  return { ctx, tasks: ctx.tasks!, logDir: join(ctx.cwd, 'tasks') }
}

const readLog = (path: string) => readFileSync(path, 'utf8')

describe('detached tasks on the process context', () => {
  it('runs a task to completion, logs its output and reports its exit', async () => {
    const { tasks, logDir } = setup()
    const task = await tasks.start({ command: 'echo one; echo two 1>&2; exit 4', logDir })
    expect(task.logPath).toBe(join(logDir, `${task.id}.log`))
    const exit = await task.wait()
    expect(exit).toMatchObject({ status: 'exited', exitCode: 4, signal: null })
    expect(readLog(task.logPath)).toBe('one\ntwo\n')
    expect(await tasks.get(task.id)).toMatchObject({ status: 'exited', outputBytes: 8, droppedBytes: 0 })
    expect(await tasks.tail(task.id)).toEqual({ text: 'one\ntwo\n', droppedBytes: 0 })
  })

  it('a wait that times out leaves the task running; kill ends the group and the log stays readable', async () => {
    const { tasks, logDir } = setup()
    const task = await tasks.start({ command: 'echo started; sleep 30 & echo "$!"; wait', logDir })
    expect(await tasks.wait(task.id, { timeoutMs: 100 })).toBeUndefined()
    expect((await tasks.list()).map(entry => entry.status)).toEqual(['running'])
    const child = Number(await eventually(() => readLog(task.logPath).split('\n')[1]))
    expect(isRunning(child)).toBe(true)
    expect(await tasks.kill(task.id)).toBe(true)
    expect((await tasks.get(task.id))?.status).toBe('killed')
    await eventually(() => !isRunning(child))
    expect(readLog(task.logPath)).toContain('started\n')
  })

  // A child that left the group (setsid) survives the kill and holds the output pipes: the task read as running
  // for good, and kill and destroy each waited their 3 s fallback. The pipes are now closed once the group is
  // gone, so the task settles as killed soon after the grace period. The escaped child itself lives on.
  it('kill settles a task whose escaped child (setsid) still holds its output', async () => {
    const { tasks, logDir } = setup()
    const task = await tasks.start({ command: 'setsid sh -c \'echo "$$"; exec sleep 30\' & sleep 60', logDir })
    const escaped = Number(await eventually(() => readLog(task.logPath).split('\n')[0]))
    try {
      const startedAt = Date.now()
      expect(await tasks.kill(task.id)).toBe(true)
      expect(Date.now() - startedAt).toBeLessThan(2_000)
      expect(await tasks.get(task.id)).toMatchObject({ status: 'killed' })
      expect(isRunning(escaped)).toBe(true)
    }
    finally {
      process.kill(escaped, 'SIGKILL')
    }
  })

  it('caps the log, keeps the task running past the cap and records the dropped bytes', async () => {
    const { tasks, logDir } = setup()
    const task = await tasks.start({
      command: 'printf "0123456789"; printf "abcdefghij"; sleep 0.2; echo still-running > marker.txt',
      logDir,
      outputCap: 15,
    })
    await task.wait()
    const log = readLog(task.logPath)
    expect(log.startsWith('0123456789abcde\n[output capped at 15 bytes')).toBe(true)
    expect(log).toContain('[output capped: 5 bytes were not logged]')
    expect(readFileSync(join(task.entry().cwd, 'marker.txt'), 'utf8')).toBe('still-running\n')
    expect(task.entry()).toMatchObject({ outputBytes: 20, droppedBytes: 5 })
    // The in-memory tail is not capped: the latest output is still visible.
    expect((await tasks.tail(task.id))?.text).toBe('0123456789abcdefghij')
  })

  it('never splits a multibyte character at the cap', async () => {
    const { tasks, logDir } = setup()
    const task = await tasks.start({ command: 'printf "aé"', logDir, outputCap: 2 })
    await task.wait()
    expect(readLog(task.logPath).startsWith('a\n[output capped at 2 bytes')).toBe(true)
  })

  it('reports a stall once per silence and re-arms after fresh output, without killing the task', async () => {
    const { tasks, logDir } = setup()
    const stalls: TaskStallInfo[] = []
    const task = await tasks.start({
      command: 'echo a; sleep 0.6; echo b; sleep 0.6; echo c',
      logDir,
      stallAfterMs: 200,
      onStall: info => stalls.push(info),
    })
    const exit = await task.wait()
    expect(exit?.status).toBe('exited')
    expect(stalls.length).toBe(2)
    expect(stalls[0]).toMatchObject({ taskId: task.id, logPath: task.logPath })
    expect(stalls[0].silentMs).toBeGreaterThanOrEqual(150)
    expect(readLog(task.logPath)).toBe('a\nb\nc\n')
  })

  it('survives the caller: the task keeps writing after start returned, and destroy kills it', async () => {
    const ctx = createProcessContext({ cwd: tempDir(), killGraceMs: 500 })
    const task = await ctx.tasks!.start({ command: 'echo "$$"; while true; do echo tick; sleep 0.05; done', logDir: join(ctx.cwd, 'tasks') })
    await eventually(() => readLog(task.logPath).split('tick').length > 3)
    const pid = Number(readLog(task.logPath).split('\n')[0])
    expect(isRunning(pid)).toBe(true)
    await ctx.destroy()
    await eventually(() => !isRunning(pid))
    expect(task.entry().status).toBe('killed')
  })

  it('answers unknown ids plainly', async () => {
    const { tasks } = setup()
    expect(await tasks.get('task-nope')).toBeUndefined()
    expect(await tasks.kill('task-nope')).toBe(false)
    expect(await tasks.wait('task-nope')).toBeUndefined()
    expect(await tasks.tail('task-nope')).toBeUndefined()
  })
})
