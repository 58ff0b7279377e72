/**
 * Companions of `shell`'s background mode: wait for a task, list tasks, kill
 * one. They reach the tasks through the execution context, the same way the
 * shell tool started them, so a task started in a container is managed there.
 */

import type { DetachedTasksCapability, TaskEntry, TaskExitInfo } from '../../contexts/types'
import type { ToolContext, ToolDef } from '../types'
import { z } from 'zod'
import { executionContextOf } from '../../contexts/from-tool-context'
import { truncateText } from '../../text/truncate'
import { tool } from '../tool'
import { droppedBytesMarker, formatDuration } from './output'

/** How long `wait_task` waits when the call gives no timeout. */
export const DEFAULT_WAIT_TASK_TIMEOUT_MS = 60_000
/** Bytes of a task's latest output shown by `wait_task`. */
const WAIT_TASK_TAIL_BYTES = 8 * 1024
const LISTED_COMMAND_CHARS = 120

function tasksOf(ctx: ToolContext): DetachedTasksCapability {
  const tasks = executionContextOf(ctx).tasks
  if (!tasks)
    throw new Error('This execution context has no background tasks.')
  return tasks
}

async function knownTask(tasks: DetachedTasksCapability, id: string): Promise<TaskEntry> {
  const entry = await tasks.get(id)
  if (entry)
    return entry
  const known = (await tasks.list()).map(task => task.id)
  throw new Error(`Unknown task "${id}". ${known.length > 0 ? `Known tasks: ${known.join(', ')}.` : 'No background tasks have been started.'}`)
}

export function describeExit(exit: TaskExitInfo): string {
  switch (exit.status) {
    case 'exited':
      return `exited with code ${exit.exitCode}`
    case 'killed':
      return `was killed${exit.signal ? ` (${exit.signal})` : ''}`
    case 'failed':
      return 'failed to run'
  }
}

export interface WaitTaskInput {
  task_id: string
  timeout?: number
}

export function createWaitTaskTool(): ToolDef<WaitTaskInput> {
  const def = tool({
    name: 'wait_task',
    description: 'Wait for a background task started by shell to finish, then return its exit status and the end of its output. '
      + `\`timeout\` is in milliseconds (default ${DEFAULT_WAIT_TASK_TIMEOUT_MS}); when it expires the task keeps running and the output so far is returned.`,
    input: z.object({
      task_id: z.string().min(1).describe('The task id returned by shell.'),
      timeout: z.number().int().positive().optional().describe('Most milliseconds to wait.'),
    }),
    async execute(input, ctx) {
      const tasks = tasksOf(ctx)
      const entry = await knownTask(tasks, input.task_id)
      const timeoutMs = input.timeout ?? DEFAULT_WAIT_TASK_TIMEOUT_MS
      const exit = await tasks.wait(entry.id, { timeoutMs, signal: ctx.signal })
      const tail = await tasks.tail(entry.id, WAIT_TASK_TAIL_BYTES)
      const headline = exit
        ? `Task ${entry.id} ${describeExit(exit)} after ${formatDuration(exit.durationMs)}.`
        : `Task ${entry.id} is still running after waiting ${formatDuration(timeoutMs)}.`
      const output = !tail || (tail.text === '' && tail.droppedBytes === 0)
        ? '(no output)'
        : `${tail.droppedBytes > 0 ? `${droppedBytesMarker(tail.droppedBytes)}\n` : ''}${tail.text}`
      return `${headline}\nLog: ${entry.logPath}\nLatest output:\n${output}`
    },
  })
  def.isConcurrencySafe = true
  return def
}

function listLine(task: TaskEntry, now: number): string {
  const state = task.exit ? `${task.status} (${describeExit(task.exit)})` : `running for ${formatDuration(now - task.startedAt)}`
  const command = task.command.length > LISTED_COMMAND_CHARS ? `${truncateText(task.command, LISTED_COMMAND_CHARS)}…` : task.command
  return `${task.id}  ${state}${task.pid === undefined ? '' : `  pid ${task.pid}`}\n  command: ${command}\n  log: ${task.logPath}`
}

export function createListTasksTool(): ToolDef<Record<string, never>> {
  const def = tool({
    name: 'list_tasks',
    description: 'List the background tasks started by shell: id, status, command and log path.',
    input: z.object({}),
    async execute(_input, ctx) {
      const tasks = await tasksOf(ctx).list()
      if (tasks.length === 0)
        return 'No background tasks.'
      const now = Date.now()
      return tasks.map(task => listLine(task, now)).join('\n')
    },
  })
  def.isConcurrencySafe = true
  return def as ToolDef<Record<string, never>>
}

export interface KillTaskInput {
  task_id: string
}

export function createKillTaskTool(): ToolDef<KillTaskInput> {
  const def = tool({
    name: 'kill_task',
    description: 'Stop a background task started by shell, with all of its child processes. Its log stays readable.',
    input: z.object({ task_id: z.string().min(1).describe('The task id returned by shell.') }),
    async execute(input, ctx) {
      const tasks = tasksOf(ctx)
      const entry = await knownTask(tasks, input.task_id)
      if (entry.exit)
        return `Task ${entry.id} is not running: it ${describeExit(entry.exit)}. Log: ${entry.logPath}`
      await tasks.kill(entry.id)
      const after = await tasks.get(entry.id)
      if (after?.exit)
        return `Task ${entry.id} ${describeExit(after.exit)}. Log: ${entry.logPath}`
      return `Sent task ${entry.id} a kill signal; it has not exited yet. Log: ${entry.logPath}`
    },
  })
  def.isConcurrencySafe = false
  return def
}

/** The `wait_task` tool: wait for a background task and read the tail of its log. */
export const waitTask = createWaitTaskTool()
/** The `list_tasks` tool: every background task and its status. */
export const listTasks = createListTasksTool()
/** The `kill_task` tool: stop a background task. */
export const killTask = createKillTaskTool()

/** The three task tools, keyed by name, to spread into `AgentOptions.tools` next to `shell`. */
export const taskTools = { wait_task: waitTask, list_tasks: listTasks, kill_task: killTask } as const
