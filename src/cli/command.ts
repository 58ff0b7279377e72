/**
 * `zidane [options] [prompt]`: one prompt, run with a built-in chat profile
 * on the chosen provider, recorded in a session on disk, streamed to the
 * terminal (or as JSON lines), ending with an exit code per stop reason.
 * Everything it touches comes in through `CommandIO`, so tests drive it as
 * the real process does.
 */

import type { Readable, Writable } from 'node:stream'
import type { AgentStreamEvent } from '../agent/stream-events'
import type { AgentStats } from '../core/stats'
import type { CliArgs } from './args'
import type { SignalSource } from './interrupt'
import type { TerminalStyle } from './terminal-text'
import { statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createAgent } from '../agent/create-agent'
import { resolveChatProfile } from '../chat/host'
import { chatProfiles } from '../chat/profiles'
import { createProcessContext } from '../contexts/process'
import { mergeObjects } from '../core/merge-objects'
import { createFileStore } from '../session/stores/file'
import { approvalMode, approvalsFor, continueCommands, createApprovalResponder, suspendedLine, suspendedNotice } from './approvals'
import { MAX_PROMPT_BYTES, parseCliArgs, USAGE, UsageError } from './args'
import { resolveDataDir, TRANSCRIPTS_FOLDER } from './data-dir'
import { EXIT_CODES, exitCodeForError, exitCodeForStop } from './exit-codes'
import { handleInterrupts } from './interrupt'
import { errorLine, eventLine } from './json-lines'
import { chooseProviderName, createCliProvider } from './provider-choice'
import { createRenderer } from './render'
import { formatSessionRows, listCliSessions, openCliSession } from './sessions'
import { terminalStyle } from './terminal-text'

type TtyReadable = Readable & { isTTY?: boolean }
type TtyWritable = Writable & { isTTY?: boolean }

/** The process as the command sees it. */
export interface CommandIO {
  readonly argv: readonly string[]
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  readonly stdin: TtyReadable
  readonly stdout: TtyWritable
  readonly stderr: TtyWritable
  /** Where Ctrl-C arrives (`process`). */
  readonly signals: SignalSource
  /** Leave now with this code (the second Ctrl-C). */
  readonly exit: (code: number) => void
  readonly version: string
}

/** Run the command; resolves to the exit code. */
export async function runCommand(io: CommandIO): Promise<number> {
  const errStyle = terminalStyle(io.stderr.isTTY === true, io.env)
  let args: CliArgs
  try {
    args = parseCliArgs(io.argv)
  }
  catch (error) {
    return usageFailure(io, errStyle, error)
  }
  if (args.help) {
    io.stdout.write(`${USAGE}\n`)
    return EXIT_CODES.completed
  }
  if (args.version) {
    io.stdout.write(`${io.version}\n`)
    return EXIT_CODES.completed
  }
  try {
    return await runWithArgs(io, args, errStyle)
  }
  catch (error) {
    if (error instanceof UsageError)
      return usageFailure(io, errStyle, error)
    // Before the run started (the session store, a lease held elsewhere): say what failed, no stack.
    io.stderr.write(`${errStyle.paint.red('error:')} ${errStyle.safe(describeError(error))}\n`)
    return exitCodeForError(error)
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}

function usageFailure(io: CommandIO, style: TerminalStyle, error: unknown): number {
  io.stderr.write(`${style.paint.red('zidane:')} ${style.safe((error as Error).message)}\nRun zidane --help for the options.\n`)
  return EXIT_CODES.usage
}

function workingFolder(io: CommandIO, flag: string | undefined): string {
  const cwd = resolve(io.cwd, flag ?? '.')
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--cwd: ${cwd} is not a folder`)
  return cwd
}

async function readPrompt(io: CommandIO, args: CliArgs): Promise<string | undefined> {
  if (args.prompt !== undefined || args.resume || io.stdin.isTTY)
    return args.prompt
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of io.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    size += buffer.length
    if (size > MAX_PROMPT_BYTES)
      throw new UsageError(`the prompt on standard input is over ${MAX_PROMPT_BYTES} bytes`)
    chunks.push(buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8').trim()
  return text === '' ? undefined : text
}

async function runWithArgs(io: CommandIO, args: CliArgs, errStyle: TerminalStyle): Promise<number> {
  const cwd = workingFolder(io, args.cwd)
  const dataDir = resolveDataDir(args.dataDir, io.env, io.cwd)
  const store = createFileStore({ dir: join(dataDir, TRANSCRIPTS_FOLDER) })
  try {
    if (args.list) {
      io.stdout.write(formatSessionRows(await listCliSessions(store), terminalStyle(io.stdout.isTTY === true, io.env).safe))
      return EXIT_CODES.completed
    }
    const prompt = await readPrompt(io, args)
    if (prompt === undefined && !args.resume)
      throw new UsageError('no prompt: pass it as an argument, on standard input, or use --resume to continue')
    const providerName = chooseProviderName(args, io.env)
    const provider = await createCliProvider(providerName, args, io.env)
    const session = await openCliSession(store, { id: args.session, resume: args.resume, cwd, prompt })
    const contextWindow = args.contextWindow ?? await catalogWindow(provider.name, args.model ?? provider.meta.defaultModel)
    const profile = resolveChatProfile(chatProfiles[args.profile], { dataDir, sessionId: session.id, contextWindow })
    // The build profile's shell and file writes wait for a yes (a person's, or --yes); the plan profile only reads.
    const agent = createAgent({ provider, session, execution: createProcessContext({ cwd }), needsApproval: approvalsFor(profile.tools) })
    try {
      return await streamRun(io, args, errStyle, { agent, profile, prompt, sessionId: session.id })
    }
    finally {
      await agent.destroy()
    }
  }
  finally {
    await store.close?.()
  }
}

/** The model's window from the model catalog, when it knows the model. */
async function catalogWindow(provider: string, model: string | undefined): Promise<number | undefined> {
  if (model === undefined)
    return undefined
  const { resolveModelInfo } = await import('../providers/catalog')
  return resolveModelInfo(provider, model).contextWindow
}

interface RunParts {
  readonly agent: ReturnType<typeof createAgent>
  readonly profile: ReturnType<typeof resolveChatProfile>
  readonly prompt: string | undefined
  readonly sessionId: string
}

async function streamRun(io: CommandIO, args: CliArgs, errStyle: TerminalStyle, parts: RunParts): Promise<number> {
  const { agent, profile, prompt, sessionId } = parts
  const { paint } = errStyle
  const render = args.json
    ? (event: AgentStreamEvent) => void io.stdout.write(eventLine(event))
    : createRenderer({ out: io.stdout, err: io.stderr, outStyle: terminalStyle(io.stdout.isTTY === true, io.env), errStyle })
  // The call refused by a Ctrl-C at its question: the run is stopped once its answer is in.
  let refusedCallId: string | undefined
  // A Ctrl-C typed at a question is a key, not a signal: it is counted with the signals (set once they are listened to).
  let pressCtrlC = () => {}
  const approvals = createApprovalResponder(
    approvalMode({ yes: args.yes, json: args.json, stdinIsTTY: io.stdin.isTTY === true, stderrIsTTY: io.stderr.isTTY === true }),
    { input: io.stdin, output: io.stderr, style: errStyle, onInterrupt: () => pressCtrlC() },
  )
  const interrupts = handleInterrupts(io.signals, {
    stop: () => {
      if (!args.json)
        io.stderr.write(`\n${paint.yellow('Stopping… (Ctrl-C again to quit at once)')}\n`)
      refusedCallId = approvals.interrupt()
      if (refusedCallId === undefined)
        agent.abort()
    },
    quit: () => io.exit(EXIT_CODES.interrupted),
  })
  pressCtrlC = interrupts.press
  /**
   * The one place the command reacts to the run's events, each in order and
   * awaited before the next is read (the run waits for a slow reader at its
   * next boundary, and for an approval with no time limit), so the question
   * to the person fits here.
   */
  const onStreamEvent = async (event: AgentStreamEvent): Promise<void> => {
    render(event)
    if (event.type === 'tool-approval')
      await approvals.answer(event)
    // The refused call's answer is in (or, failing that, its turn ended): now stop, as Ctrl-C does anywhere else.
    if (refusedCallId !== undefined && ((event.type === 'tool-result' && event.callId === refusedCallId) || (event.type === 'turn-end' && event.depth === 0))) {
      refusedCallId = undefined
      agent.abort()
    }
  }
  const behavior = mergeObjects(args.maxTurns === undefined ? {} : { maxTurns: args.maxTurns }, args.maxCostUsd === undefined ? {} : { maxCostUsd: args.maxCostUsd })
  try {
    const stream = agent.stream(mergeObjects(prompt === undefined ? {} : { prompt }, { profile, behavior }, args.thinking === undefined ? {} : { thinking: args.thinking }))
    for await (const event of stream)
      await onStreamEvent(event)
    const stats = await stream.result
    const code = exitCodeForStop(stats.stopReason)
    const pending = stats.stopReason === 'suspended' ? stats.pendingApprovals ?? [] : []
    if (args.json) {
      if (pending.length > 0)
        io.stdout.write(suspendedLine(pending, sessionId))
    }
    else {
      if (pending.length > 0)
        io.stderr.write(`${suspendedNotice(pending, sessionId, errStyle)}\n`)
      io.stderr.write(`${summary(stats, sessionId, paint)}\n`)
    }
    return code
  }
  catch (error) {
    const code = exitCodeForError(error)
    if (args.json)
      io.stdout.write(errorLine(error, code))
    else
      io.stderr.write(`${paint.red('error:')} ${errStyle.safe(describeError(error))}\nsession ${sessionId}\n`)
    return code
  }
  finally {
    interrupts.dispose()
  }
}

function summary(stats: AgentStats, sessionId: string, paint: TerminalStyle['paint']): string {
  const cost = stats.cost === undefined ? '' : ` · $${stats.cost.toFixed(4)}`
  const line = `${stats.stopReason} · ${stats.turns} turn${stats.turns === 1 ? '' : 's'} · ${stats.totalIn} in, ${stats.totalOut} out${cost} · session ${sessionId}`
  const resume = stats.stopReason === 'completed' ? '' : `\nContinue with: ${continueCommands(sessionId).ask}`
  return paint.dim(line + resume)
}
