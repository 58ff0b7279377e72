import type { TaskStallInfo } from '../../src/contexts/types'
import type { ToolContext, ToolDef } from '../../src/tools/types'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createProcessContext } from '../../src/contexts/process'
import { createShellTool, killTask, listTasks, shell, waitTask } from '../../src/tools/shell'
import { eventually, isRunning, tempDirs, toolContext } from '../contexts/support'

const tempDir = tempDirs('shell-background')
const contexts: { destroy: () => Promise<void> }[] = []
afterAll(async () => {
  await Promise.all(contexts.map(context => context.destroy()))
})

function setup(behavior: Record<string, unknown> = {}) {
  const execution = createProcessContext({ cwd: tempDir(), killGraceMs: 300 })
  contexts.push(execution)
  const tasksDir = join(execution.cwd, '.tasks')
  const ctx = toolContext({ execution, behavior: { tasksDir, ...behavior } })
  return { execution, tasksDir, ctx }
}

async function call(def: ToolDef, input: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const checked = def.validate!(input)
  if (!checked.ok)
    throw new Error(checked.error)
  return String(await def.execute(checked.value, ctx))
}

/** Start a background command through the tool; return the task id and log path it reported. */
async function startBackground(ctx: ToolContext, command: string, def: ToolDef = shell) {
  const out = await call(def, { command, run_in_background: true }, ctx)
  const id = /task (task-[\da-f]+)/.exec(out)?.[1]
  const log = /^Log: (.+)$/m.exec(out)?.[1]
  expect(id).toBeDefined()
  expect(log).toBeDefined()
  return { out, id: id!, log: log! }
}

const readLog = (path: string) => readFileSync(path, 'utf8')

describe('shell background mode', () => {
  it('returns at once with the task id and log path; the task outlives the call and its log is readable after', async () => {
    const { ctx, tasksDir } = setup()
    const { out, id, log } = await startBackground(ctx, 'echo begin; sleep 0.4; echo end')
    expect(log).toBe(join(tasksDir, `${id}.log`))
    expect(out).toMatch(/wait_task/)
    expect(await call(listTasks, {}, ctx)).toMatch(new RegExp(`${id} {2}running for`))
    await eventually(() => readLog(log).includes('end'))
    expect(readLog(log)).toBe('begin\nend\n')
  })

  it('caps the log at backgroundOutputCap with a marker while the task keeps running', async () => {
    const { ctx, execution } = setup({ backgroundOutputCap: 8 })
    const { id, log } = await startBackground(ctx, 'printf "12345678-overflow"; sleep 0.2; touch after-cap')
    const waited = await call(waitTask, { task_id: id, timeout: 8_000 }, ctx)
    expect(waited).toMatch(/exited with code 0/)
    const text = readLog(log)
    expect(text.startsWith('12345678\n[output capped at 8 bytes')).toBe(true)
    expect(text).toContain('[output capped: 9 bytes were not logged]')
    expect(await execution.stat('after-cap')).toBeDefined()
  })

  it('fires the stall notification (tool option and tool-context sink) without killing the task', async () => {
    const fromOption: TaskStallInfo[] = []
    const fromContext: TaskStallInfo[] = []
    const def = createShellTool({ onBackgroundStall: info => fromOption.push(info) })
    const { ctx } = setup({ backgroundStallWatchdogMs: 150 })
    Object.assign(ctx, { onBackgroundStall: (info: TaskStallInfo) => fromContext.push(info) })
    const { id, log } = await startBackground(ctx, 'echo "waiting for input (y/n)"; sleep 30', def)
    await eventually(() => fromOption.length === 1 && fromContext.length === 1)
    expect(fromOption[0]).toMatchObject({ taskId: id, logPath: log })
    expect(await call(listTasks, {}, ctx)).toMatch(new RegExp(`${id} {2}running`))
    await call(killTask, { task_id: id }, ctx)
  })

  it('wait_task returns the exit status and the end of the output', async () => {
    const { ctx } = setup()
    const { id, log } = await startBackground(ctx, 'echo building; echo failed 1>&2; exit 2')
    const out = await call(waitTask, { task_id: id }, ctx)
    expect(out).toMatch(new RegExp(`^Task ${id} exited with code 2 after `))
    expect(out).toContain(`Log: ${log}`)
    expect(out).toMatch(/Latest output:\nbuilding\nfailed\n$/)
  })

  it('wait_task gives up after its timeout and leaves the task running', async () => {
    const { ctx } = setup()
    const { id } = await startBackground(ctx, 'echo partial; sleep 30')
    await eventually(async () => (await call(waitTask, { task_id: id, timeout: 50 }, ctx)).includes('partial'))
    const out = await call(waitTask, { task_id: id, timeout: 100 }, ctx)
    expect(out).toMatch(new RegExp(`^Task ${id} is still running after waiting 100 ms`))
    expect(out).toMatch(/Latest output:\npartial\n$/)
    await call(killTask, { task_id: id }, ctx)
  })

  it('kill_task stops the task and its children; the log stays; a second kill reports it already ended', async () => {
    const { ctx } = setup()
    const { id, log } = await startBackground(ctx, 'sleep 30 & echo "$!"; wait')
    const child = Number(await eventually(() => readLog(log).trim()))
    expect(isRunning(child)).toBe(true)
    expect(await call(killTask, { task_id: id }, ctx)).toMatch(new RegExp(`^Task ${id} was killed`))
    await eventually(() => !isRunning(child))
    expect(readLog(log)).toBe(`${child}\n`)
    expect(await call(killTask, { task_id: id }, ctx)).toMatch(new RegExp(`^Task ${id} is not running: it was killed`))
    expect(await call(listTasks, {}, ctx)).toMatch(new RegExp(`${id} {2}killed`))
  })

  it('lists nothing before any task and names unknown tasks with the known ones', async () => {
    const { ctx } = setup()
    expect(await call(listTasks, {}, ctx)).toBe('No background tasks.')
    await expect(call(waitTask, { task_id: 'task-nope' }, ctx)).rejects.toThrow(/Unknown task "task-nope". No background tasks have been started/)
    const { id } = await startBackground(ctx, 'true')
    await expect(call(killTask, { task_id: 'task-nope' }, ctx)).rejects.toThrow(new RegExp(`Known tasks: ${id}`))
  })
})
