/**
 * What the model reads back from a shell call: the end of the combined
 * output (the start gives way first, with a marker saying how much went),
 * then a footer with how the command ended and how long it took.
 */

import type { ExecResult } from '../../contexts/types'
import { tailOfText } from '../../contexts/output'

/** Bytes of output a shell call returns by default. */
export const DEFAULT_SHELL_OUTPUT_BYTES = 32 * 1024

export function droppedBytesMarker(bytes: number): string {
  return `[… ${bytes} bytes dropped …]`
}

export function formatDuration(ms: number): string {
  if (ms < 1000)
    return `${Math.round(ms)} ms`
  if (ms < 60_000)
    return `${(ms / 1000).toFixed(1)} s`
  const minutes = Math.floor(ms / 60_000)
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`
}

/** Keep the last `maxBytes` bytes of `output` behind a marker naming the bytes dropped (including any the context already dropped). */
export function truncateOutput(output: string, maxBytes: number, alreadyDropped = 0): string {
  const { text, droppedBytes } = tailOfText(output, maxBytes)
  const dropped = alreadyDropped + droppedBytes
  return dropped > 0 ? `${droppedBytesMarker(dropped)}\n${text}` : text
}

function ending(result: ExecResult, timeoutMs: number | undefined): string {
  if (result.timedOut)
    return `timed out after ${formatDuration(timeoutMs ?? result.durationMs)}; the command and its child processes were killed`
  if (result.aborted)
    return 'aborted; the command and its child processes were killed'
  if (result.exitCode === null)
    return `killed by ${result.signal ?? 'a signal'}`
  return `exit code ${result.exitCode}`
}

export function formatShellResult(result: ExecResult, options: { maxOutputBytes: number, timeoutMs?: number }): string {
  const body = result.output === '' && result.truncatedBytes === 0
    ? '(no output)'
    : truncateOutput(result.output, options.maxOutputBytes, result.truncatedBytes)
  const separator = body.endsWith('\n') ? '' : '\n'
  return `${body}${separator}[${ending(result, options.timeoutMs)} · ${formatDuration(result.durationMs)}]`
}
