/**
 * How the `zidane` command answers a tool call that needs approval: the
 * `basic` preset's shell and file writes are gated (`basicApprovals`); on a
 * terminal the person is asked; `--yes` approves them all; anywhere else
 * (a pipe, `--json`) the run is suspended and the command says how to
 * continue it.
 */

import type { ToolApprovalEvent } from '../agent/stream-events'
import type { PendingApproval } from '../core/approval'
import type { NeedsApprovalMap, ToolMap } from '../tools/types'
import type { ApprovalTerminal } from './approval'
import type { TerminalStyle } from './terminal-text'
import { mergeObjects } from '../core/merge-objects'
import { basicApprovals } from '../presets'
import { askApproval, INTERRUPTED_REASON } from './approval'
import { describeInputInFull } from './render'

/** `ask` a person at the terminal, `approve` every call (`--yes`), or `suspend` the run for a later decision. */
export type ApprovalMode = 'ask' | 'approve' | 'suspend'

/** The reason recorded on a call `--yes` approved (kept on its result's metadata, for audits). */
export const YES_FLAG_REASON = 'approved by --yes'

/** The mode for a command line: `--yes` wins; asking needs a person on both ends of a terminal and no `--json`. */
export function approvalMode(options: { yes: boolean, json: boolean, stdinIsTTY: boolean, stderrIsTTY: boolean }): ApprovalMode {
  if (options.yes)
    return 'approve'
  return !options.json && options.stdinIsTTY && options.stderrIsTTY ? 'ask' : 'suspend'
}

/** The entries of `basicApprovals` for the tools a profile has (none for a profile that only reads). */
export function approvalsFor(tools: ToolMap | undefined): NeedsApprovalMap {
  const names = new Set(Object.keys(tools ?? {}))
  return Object.fromEntries(Object.entries(basicApprovals).filter(([name]) => names.has(name)))
}

/** Answers `tool-approval` events one at a time, in the mode given. */
export interface ApprovalResponder {
  readonly answer: (event: ToolApprovalEvent) => Promise<void>
  /**
   * Ctrl-C: a call being asked about is denied with the interrupted reason
   * and the question ends. Returns then the id of the call whose result the
   * host waits for before it stops the run (the call's own, or for a call a
   * tool made, the calling tool's): `agent.abort()` at once would answer the
   * call as aborted instead, and the model would not learn it was refused.
   */
  readonly interrupt: () => string | undefined
}

/** The terminal of the question, less what the responder sets itself. */
export type ResponderTerminal = Omit<ApprovalTerminal, 'signal'>

export function createApprovalResponder(mode: ApprovalMode, terminal: ResponderTerminal): ApprovalResponder {
  let asking: { event: ToolApprovalEvent, controller: AbortController } | undefined
  // After a Ctrl-C at a question, the calls still to be asked about (a parallel batch) are refused the same way, unasked.
  let interrupted = false
  return {
    answer: async (event) => {
      if (interrupted && mode === 'ask')
        return event.deny({ reason: INTERRUPTED_REASON })
      if (mode === 'approve')
        return event.approve({ reason: YES_FLAG_REASON })
      if (mode === 'suspend')
        return event.suspend()
      const controller = new AbortController()
      asking = { event, controller }
      try {
        const answer = await askApproval(mergeObjects(terminal, { signal: controller.signal }), { tool: event.name, input: event.input })
        if (answer.approved)
          event.approve()
        else
          event.deny(answer.reason === undefined ? {} : { reason: answer.reason })
      }
      finally {
        asking = undefined
      }
    },
    interrupt: () => {
      if (!asking)
        return undefined
      interrupted = true
      asking.event.deny({ reason: INTERRUPTED_REASON })
      asking.controller.abort()
      return asking.event.parentToolCallId ?? asking.event.callId
    },
  }
}

/** The commands that continue a run suspended for approval. */
export function continueCommands(sessionId: string): { readonly ask: string, readonly approveAll: string } {
  // `--session=<id>`: an id may start with "-", and `--session -x` would read it as an option.
  return { ask: `zidane --session=${sessionId} --resume`, approveAll: `zidane --session=${sessionId} --resume --yes` }
}

/** What a suspended run waits for and how to continue it, for standard error. */
export function suspendedNotice(pending: readonly PendingApproval[], sessionId: string, style: TerminalStyle): string {
  const { paint, safe } = style
  const commands = continueCommands(sessionId)
  // Each call's whole input, as the question on a terminal shows it: the approval is given for all of it.
  const calls = pending.map(call => `  ${paint.bold(safe(call.name))} ${paint.dim(`(${safe(call.callId)})`)}\n${safe(describeInputInFull(call.input))}`)
  return [
    paint.yellow(`Waiting for approval (${pending.length} call${pending.length === 1 ? '' : 's'}):`),
    ...calls,
    `To decide on a terminal: ${commands.ask}`,
    `To approve ${pending.length === 1 ? 'it' : 'them all'}: ${commands.approveAll}`,
  ].join('\n')
}

/** The `--json` line a suspended run ends with. */
export function suspendedLine(pending: readonly PendingApproval[], sessionId: string): string {
  const calls = pending.map(({ callId, name, input }) => ({ callId, name, input }))
  return `${JSON.stringify({ type: 'approval-pending', sessionId, calls, continueWith: continueCommands(sessionId) })}\n`
}
