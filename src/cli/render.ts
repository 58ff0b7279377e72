/**
 * The human rendering of `agent.stream()` events. Answer text goes to
 * standard output, so `zidane "…" > answer.md` keeps just the answer; what
 * the agent does along the way (thinking, tool calls and results, retries)
 * goes to standard error. Untrusted text passes through the stream's
 * `safe` first.
 */

import type { AgentStreamEvent } from '../agent/stream-events'
import type { TerminalStyle } from './terminal-text'
import { toolResultToText } from '../session/tool-output'
import { textCutIndex } from '../text/truncate'

/** Where the renderer writes. */
export interface RenderTarget {
  readonly out: { write: (text: string) => unknown }
  readonly err: { write: (text: string) => unknown }
  readonly outStyle: TerminalStyle
  readonly errStyle: TerminalStyle
}

/** Longest one-line summary of a tool's input or result. */
const SUMMARY_CHARS = 120

/** The first line of `text`, cut to `SUMMARY_CHARS`. */
export function oneLine(text: string): string {
  const first = text.split('\n', 1)[0].trim()
  return first.length > SUMMARY_CHARS ? `${first.slice(0, SUMMARY_CHARS - 1)}…` : first
}

/** What a tool call is about: the command, the path, or the input as JSON. */
function mainInput(input: Readonly<Record<string, unknown>>): string {
  for (const key of ['command', 'path', 'pattern', 'url', 'query', 'task']) {
    if (typeof input[key] === 'string')
      return input[key] as string
  }
  return JSON.stringify(input) ?? ''
}

/** What a tool call is about, in one line: the command, the path, or the input as JSON. */
export function describeInput(name: string, input: Readonly<Record<string, unknown>>): string {
  return oneLine(mainInput(input))
}

/** Most characters of a call's input an approval shows. */
export const APPROVAL_INPUT_CHARS = 4000

/**
 * What a call waiting for approval is about, whole: every line indented by
 * four spaces, cut only past `APPROVAL_INPUT_CHARS`, and then a line (indented
 * by two, so no input line can pass for it) says how much was left out. A
 * person says yes to what they see, so no line of a command may hide below
 * the first one or past a column.
 */
export function describeInputInFull(input: Readonly<Record<string, unknown>>): string {
  const text = mainInput(input)
  const end = textCutIndex(text, APPROVAL_INPUT_CHARS)
  const lines = text.slice(0, end).split('\n').map(line => `    ${line}`)
  if (end < text.length)
    lines.push(`  (${text.length - end} more characters not shown)`)
  return lines.join('\n')
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '' : ` ${(ms / 1000).toFixed(1)}s`
}

/** A function that renders each event as it comes. */
export function createRenderer(target: RenderTarget): (event: AgentStreamEvent) => void {
  const { out, err, outStyle, errStyle } = target
  const paint = errStyle.paint
  // Both streams usually share one terminal: a status line starts on a fresh line.
  let atLineStart = true
  let inThinking = false
  // Standard output alone (redirected) must not run one turn's text into the next.
  let outOpenLine = false

  const writeOut = (text: string) => {
    if (text === '')
      return
    out.write(outStyle.safe(text))
    atLineStart = text.endsWith('\n')
    outOpenLine = !atLineStart
  }
  const closeOutLine = () => {
    if (outOpenLine)
      out.write('\n')
    outOpenLine = false
    atLineStart = true
  }
  const status = (line: string, depth = 0) => {
    if (!atLineStart)
      err.write('\n')
    err.write(`${'  '.repeat(depth)}${line}\n`)
    atLineStart = true
  }
  const safe = errStyle.safe

  return (event) => {
    if (event.type !== 'thinking' && inThinking && event.depth === 0) {
      inThinking = false
      if (!atLineStart)
        err.write('\n')
      atLineStart = true
    }
    switch (event.type) {
      case 'text':
        if (event.depth === 0)
          writeOut(event.delta)
        break
      case 'thinking':
        if (event.depth !== 0 || event.delta === '')
          break
        if (!inThinking) {
          status(paint.dim('thinking…'))
          inThinking = true
        }
        err.write(paint.dim(safe(event.delta)))
        atLineStart = event.delta.endsWith('\n')
        break
      case 'tool-call':
        status(`${paint.cyan('→')} ${paint.bold(safe(event.name))} ${paint.dim(safe(describeInput(event.name, event.input)))}`, event.depth)
        break
      case 'tool-progress': {
        const count = event.completed === undefined ? '' : `${event.completed}${event.total === undefined ? '' : `/${event.total}`}`
        const text = [event.text === undefined ? '' : oneLine(event.text), count === '' ? '' : `(${count})`].filter(Boolean).join(' ')
        if (text !== '')
          status(paint.dim(`  … ${safe(text)}`), event.depth)
        break
      }
      case 'tool-result': {
        if (event.isError)
          status(`${paint.red('✗')} ${safe(event.name)}${seconds(event.durationMs)}: ${safe(oneLine(toolResultToText(event.output)))}`, event.depth)
        else
          status(`${paint.green('✓')} ${safe(event.name)}${paint.dim(seconds(event.durationMs))}`, event.depth)
        break
      }
      case 'retry':
        status(paint.yellow(`retrying in ${seconds(event.delayMs).trim()} (attempt ${event.attempt}): ${safe(oneLine(event.error.message))}`), event.depth)
        break
      case 'fallback':
        status(paint.yellow(`falling back from ${safe(event.from.provider)}/${safe(event.from.model)} to ${safe(event.to.provider)}/${safe(event.to.model)}`), event.depth)
        break
      case 'subagent-start':
        status(`${paint.cyan('⤷')} subagent ${safe(event.id)}: ${safe(oneLine(event.task))}`, event.depth - 1)
        break
      case 'subagent-end':
        status(`${event.error === undefined ? paint.green('✓') : paint.red('✗')} subagent ${safe(event.id)}`, event.depth - 1)
        break
      case 'turn-end':
      case 'done':
        if (event.depth === 0)
          closeOutLine()
        break
      default:
        break
    }
  }
}
