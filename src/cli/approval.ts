/**
 * Asking the person at the terminal before a tool that needs approval runs:
 * "Allow shell:", the whole command indented below it, then "[y/N]". A
 * "no" may carry a reason, which the model reads with the refusal;
 * "n because …" gives it on the same line,
 * a bare "n" asks for it (Enter skips). Anything else but yes is a no, so a
 * stray Enter never runs a tool.
 */

import type { Readable, Writable } from 'node:stream'
import type { TerminalStyle } from './terminal-text'
import { createInterface } from 'node:readline/promises'
import { describeInputInFull } from './render'

/** The call the person is asked about. */
export interface ApprovalQuestion {
  /** Canonical tool name. */
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
}

/** What the person answered. */
export type ApprovalAnswer = { readonly approved: true } | { readonly approved: false, readonly reason?: string }

/** Where the question is asked. */
export interface ApprovalTerminal {
  readonly input: Readable
  readonly output: Writable
  /** How to print to `output` (colours, untrusted text made safe). */
  readonly style: TerminalStyle
  /** Stops the question (Ctrl-C): the answer is a no saying the run was interrupted. */
  readonly signal?: AbortSignal
  /**
   * Ctrl-C typed at the question. A terminal being read line by line is in
   * raw mode, so the key reaches the process as input, not as SIGINT: the
   * host hears it here and treats it as the signal. The question ends with
   * the interrupted answer either way.
   */
  readonly onInterrupt?: () => void
}

/** Longest reason kept, in characters. */
export const MAX_REASON_CHARS = 2000

const YES = /^y(?:es)?$/i
const NO_WITH_REASON = /^no?(?:\s+|\s*[:,-]\s*)(\S.*)$/is
/** The reason given to the model for a call refused because Ctrl-C interrupted its question. */
export const INTERRUPTED_REASON = 'The user interrupted the run.'
const INTERRUPTED: ApprovalAnswer = Object.freeze({ approved: false, reason: INTERRUPTED_REASON })

function reasonOf(text: string): string | undefined {
  const trimmed = text.trim()
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_REASON_CHARS)
}

/** Ask once whether `question`'s call may run. Never throws for the person's answer; an interrupted question is a no. */
export async function askApproval(terminal: ApprovalTerminal, question: ApprovalQuestion): Promise<ApprovalAnswer> {
  const { paint, safe } = terminal.style
  const { signal } = terminal
  if (signal?.aborted)
    return INTERRUPTED
  // Lines are read from an iterator, not `rl.question`, so an answer typed (or piped) ahead of its question is kept.
  const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: (terminal.output as { isTTY?: boolean }).isTTY === true })
  const lines = rl[Symbol.asyncIterator]()
  let onAbort: (() => void) | undefined
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted')
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  rl.on('SIGINT', () => {
    onAbort?.()
    terminal.onInterrupt?.()
  })
  const ask = async (text: string): Promise<string | 'aborted' | undefined> => {
    terminal.output.write(text)
    const next = await Promise.race([lines.next(), aborted])
    return next === 'aborted' ? next : next.done ? undefined : next.value
  }
  try {
    // The whole input under the question: the answer is about every line of it.
    const line = await ask(`${paint.yellow('?')} Allow ${paint.bold(safe(question.tool))}:\n${safe(describeInputInFull(question.input))}\n[y/N] `)
    if (line === 'aborted')
      return INTERRUPTED
    // The input ended (Ctrl-D, a closed pipe): nobody approved.
    if (line === undefined)
      return { approved: false }
    const answer = line.trim()
    if (YES.test(answer))
      return { approved: true }
    const inline = NO_WITH_REASON.exec(answer)
    if (inline)
      return withReason(reasonOf(inline[1]))
    const reason = await ask(`${paint.dim('Reason for the model (Enter to skip):')} `)
    if (reason === 'aborted')
      return INTERRUPTED
    return withReason(reason === undefined ? undefined : reasonOf(reason))
  }
  finally {
    if (onAbort)
      signal?.removeEventListener('abort', onAbort)
    rl.close()
  }
}

function withReason(reason: string | undefined): ApprovalAnswer {
  return reason === undefined ? { approved: false } : { approved: false, reason }
}
