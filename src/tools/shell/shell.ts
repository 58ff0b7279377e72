/**
 * The built-in `shell` tool. Commands run in the agent's execution context
 * (never on the host directly), with a timeout, abort, bounded output and,
 * when the host has set a tasks directory, a background mode for commands
 * that run long or never end.
 */

import type { TaskStallInfo } from '../../contexts/types'
import type { ToolContext, ToolDef } from '../types'
import { z } from 'zod'
import { executionContextOf } from '../../contexts/from-tool-context'
import { debugLog } from '../../debug'
import { activeLimit } from '../../knobs/behavior'
import { tool } from '../tool'
import { DEFAULT_SHELL_OUTPUT_BYTES, formatDuration, formatShellResult } from './output'
import { registerShellTool } from './recognition'
import { backgroundAvailability, shellBehaviorOf } from './settings'
import { taskTools } from './task-tools'

/** Foreground timeout when the model gives none. */
export const DEFAULT_SHELL_TIMEOUT_MS = 120_000

export interface ShellInput {
  command: string
  timeout?: number
  run_in_background?: boolean
}

/** Options of `createShellTool`. */
export interface ShellToolOptions {
  /** Foreground timeout when the call gives none. Default 120000. */
  defaultTimeoutMs?: number
  /** Bytes of output returned to the model. Default 32 KiB. */
  maxOutputBytes?: number
  /** Called when a background task started by this tool goes silent for `backgroundStallWatchdogMs`. */
  onBackgroundStall?: (info: TaskStallInfo, ctx: ToolContext) => void
}

/**
 * Optional callback a host (the agent) may put on the tool context to hear
 * about stalled background tasks, read the same way as `execution`.
 */
export type BackgroundStallSink = (info: TaskStallInfo) => void

const command = z.string().min(1).describe('The shell command to run (POSIX sh).')
const timeout = z.number().int().positive().optional().describe('Timeout in milliseconds. The command and everything it started are killed when it expires.')
const runInBackground = z.boolean().optional().describe('Start the command as a background task and return at once with its task id and log path.')

const foregroundInput = z.object({ command, timeout })
const fullInput = z.object({ command, timeout, run_in_background: runInBackground })

function describeShell(defaultTimeoutMs: number, maxOutputBytes: number, background: boolean): string {
  const paragraphs = [
    'Run a shell command in the working directory and return its combined stdout and stderr, followed by its exit code and duration.',
    `Output longer than ${Math.round(maxOutputBytes / 1024)} KiB keeps its end; the beginning is replaced by a marker giving the number of bytes dropped. `
    + `\`timeout\` is in milliseconds (default ${defaultTimeoutMs}); on timeout or abort the command and all of its child processes are killed.`,
    'Commands get an empty stdin, so interactive prompts fail instead of waiting: pass non-interactive flags (`-y`, `--yes`, `CI=1`).',
  ]
  if (background) {
    paragraphs.push(
      'Set `run_in_background: true` for commands that run long or never end (dev servers, watchers, long builds and test suites). '
      + 'The call returns at once with a task id and the absolute path of the task\'s log file; the task keeps running after the call.',
      'Read the log with read_file. Use wait_task to wait for a task and see its exit code and last output, list_tasks to see all tasks, and kill_task to stop one. '
      + 'Prefer background mode to a long `timeout`.',
    )
  }
  return paragraphs.join('\n\n')
}

function notifyStall(options: ShellToolOptions, info: TaskStallInfo, ctx: ToolContext): void {
  const sink = (ctx as { onBackgroundStall?: BackgroundStallSink }).onBackgroundStall
  const handlers = [(stall: TaskStallInfo) => options.onBackgroundStall?.(stall, ctx), sink]
  // A failing observer must not take the task (or the other observer) down with it.
  for (const handler of handlers) {
    try {
      handler?.(info)
    }
    catch (error) {
      debugLog('a background stall handler threw', error)
    }
  }
}

/** The `shell` tool: run a command in the execution context, in the foreground or (with `tasksDir`) in the background. */
export function createShellTool(options: ShellToolOptions = {}): ToolDef<ShellInput> {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_SHELL_OUTPUT_BYTES
  const specOf = (input: z.ZodType, background: boolean) => tool({
    name: 'shell',
    description: describeShell(defaultTimeoutMs, maxOutputBytes, background),
    input,
    execute: () => '',
  }).spec

  const def = tool({
    name: 'shell',
    description: describeShell(defaultTimeoutMs, maxOutputBytes, false),
    // Validation always accepts the background flag, so a call that uses it
    // while the mode is hidden gets a clear refusal instead of silently running in the foreground.
    input: fullInput,
    async execute(input, ctx) {
      const context = executionContextOf(ctx)
      const settings = shellBehaviorOf(ctx.behavior)
      const background = backgroundAvailability(settings, context.capabilities)
      // No process takes an argument with a NUL in it; Node's own error would name `args[1]` and echo the command.
      if (input.command.includes('\0'))
        throw new Error('The command contains a NUL character (\\0), which no command line can hold. Remove it; to print a NUL byte, use printf \'\\0\'.')

      if (input.run_in_background) {
        if (!background.available)
          throw new Error(background.reason)
        if (!context.tasks)
          throw new Error('This execution context cannot run background tasks.')
        const task = await context.tasks.start({
          command: input.command,
          logDir: context.resolvePath(background.tasksDir),
          outputCap: settings.backgroundOutputCap,
          stallAfterMs: settings.backgroundStallWatchdogMs,
          onStall: info => notifyStall(options, info, ctx),
        })
        return [
          `Started background task ${task.id}${task.pid === undefined ? '' : ` (pid ${task.pid})`}.`,
          `Log: ${task.logPath}`,
          'The task keeps running. Read the log with read_file; use wait_task to wait for it, kill_task to stop it.',
        ].join('\n')
      }

      const longLimit = activeLimit(settings.shellLongTimeoutMs)
      // Refused only when the model could actually re-issue it in the background: a context
      // without a task runner would fail that call too, leaving it no way to run the command.
      if (background.available && context.tasks !== undefined && longLimit !== undefined && input.timeout !== undefined && input.timeout > longLimit) {
        throw new Error(
          `Refused: a blocking shell call may wait at most ${formatDuration(longLimit)}, and this one asked for ${formatDuration(input.timeout)}. `
          + 'Re-run the command with run_in_background: true; if the next step depends on its result, call wait_task with the task id.',
        )
      }

      const timeoutMs = input.timeout ?? defaultTimeoutMs
      await context.spawn()
      const result = await context.exec(input.command, { timeoutMs, signal: ctx.signal, maxOutputBytes })
      return formatShellResult(result, { maxOutputBytes, timeoutMs })
    },
  })
  def.isConcurrencySafe = false
  const foreground = specOf(foregroundInput, false)
  def.spec = foreground
  registerShellTool(def, { foreground, background: specOf(fullInput, true), taskTools })
  return def
}

/** The built-in shell tool. The agent recognizes it by identity to apply background-mode settings. */
export const shell: ToolDef<ShellInput> = createShellTool()
