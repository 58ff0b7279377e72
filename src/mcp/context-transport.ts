/**
 * `scope: 'context'`: a stdio MCP server started inside the agent's
 * execution context (`execStream`) rather than as a child of the host, so it
 * sees the context's files, network and environment (a container, a remote
 * sandbox). The wire format is the SDK's stdio one: one JSON-RPC message per
 * line on stdin and stdout.
 */

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { ExecExit, ExecutionContext, ExecutionHandle } from '../contexts/types'
import type { McpServerConfig } from './types'
import { StringDecoder } from 'node:string_decoder'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import { quoteShellArg, quoteShellCommand } from '../contexts/shell-quote'
import { startTimer } from '../core/timer'
import { truncateTextTail } from '../text/truncate'

/** How much of the server's stderr is kept for error messages. */
const STDERR_TAIL_CHARS = 4000
/** After stdin is closed, how long the server gets to exit by itself. */
const STDIN_CLOSE_GRACE_MS = 2000
/** After the context was asked to stop the server, how long before it is SIGKILLed. */
const TERMINATE_GRACE_MS = 5000

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

/** Resolves `true` if `promise` settles within `ms`, else `false`. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = startTimer(ms, () => resolve(false)).unref()
    void promise.then(() => {
      timer.clear()
      resolve(true)
    })
  })
}

/**
 * The shell line that starts the server. Every word is quoted, so `command`
 * names a program (as for a host stdio server), never a shell snippet.
 * `exec` makes the server replace the shell, so signals reach it directly.
 * With `strictEnv`, `env -i` empties the environment and sets exactly `env`;
 * otherwise `env` is passed to `execStream`, which merges it over the
 * context's environment.
 */
export function contextServerCommand(config: McpServerConfig): string {
  const argv = [config.command!, ...(config.args ?? [])]
  if (!config.strictEnv)
    return `exec ${quoteShellCommand(argv)}`
  const assignments = Object.entries(config.env ?? {}).map(([name, value]) => {
    if (!name || name.includes('='))
      throw new Error(`MCP server "${config.name}": invalid environment variable name ${JSON.stringify(name)}`)
    return quoteShellArg(`${name}=${value}`)
  })
  // `env` would read a command containing '=' as one more assignment.
  if (config.command!.includes('='))
    throw new Error(`MCP server "${config.name}": with strictEnv, the command cannot contain '='`)
  return ['exec', 'env', '-i', '--', ...assignments, quoteShellCommand(argv)].join(' ')
}

/** How to start a stdio MCP server inside an execution context. */
export interface ContextStdioTransportOptions {
  cwd?: string
  /** Merged over the context's environment (leave out when `command` sets the environment itself). */
  env?: Record<string, string>
  /** Receives the server's stderr as it arrives. */
  onStderr?: (chunk: string) => void
}

/** An SDK `Transport` over a process started with `ExecutionContext.execStream`. */
export class ContextStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private handle?: ExecutionHandle
  private exited?: Promise<ExecExit | undefined>
  private starting = false
  private closing?: Promise<void>
  private finished = false
  private readonly buffer = new ReadBuffer()
  private tail = ''

  constructor(
    private readonly execution: ExecutionContext,
    private readonly command: string,
    private readonly options: ContextStdioTransportOptions = {},
  ) {}

  /** Pid in the context's namespace (not necessarily a host pid), once started. */
  get pid(): number | undefined {
    return this.handle?.pid
  }

  /** The last few kilobytes the server wrote to stderr. */
  stderrTail = (): string => this.tail

  async start(): Promise<void> {
    if (this.starting)
      throw new Error('ContextStdioTransport already started')
    this.starting = true
    const handle = await this.execution.execStream(this.command, { cwd: this.options.cwd, env: this.options.env })
    if (this.closing) {
      // close() ran while the context was starting the process: nothing may outlive it.
      handle.kill('SIGKILL')
      throw new Error('The transport was closed while the server was starting')
    }
    this.handle = handle
    handle.stdout.on('data', (chunk: Buffer | string) => this.receive(chunk))
    // A character split across two chunks is held back by the decoder, never turned into U+FFFD.
    const decoder = new StringDecoder('utf8')
    handle.stderr.on('data', (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk)
      this.tail = truncateTextTail(this.tail + text, STDERR_TAIL_CHARS)
      this.options.onStderr?.(text)
    })
    for (const stream of [handle.stdin, handle.stdout, handle.stderr])
      stream.on('error', error => this.onerror?.(error))
    this.exited = handle.wait().then(exit => exit, (error: unknown) => {
      this.onerror?.(asError(error))
      return undefined
    })
    // The streams are finished once `wait` settles, so the stderr tail is complete when `onclose` runs.
    void this.exited.then(() => this.finish())
  }

  private receive(chunk: Buffer | string): void {
    try {
      this.buffer.append(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    }
    catch (error) {
      this.onerror?.(asError(error))
      return
    }
    while (true) {
      let message: JSONRPCMessage | null
      try {
        message = this.buffer.readMessage()
      }
      catch (error) {
        // The bad line is already consumed; keep reading the next ones.
        this.onerror?.(asError(error))
        continue
      }
      if (message === null)
        return
      this.onmessage?.(message)
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.handle?.stdin
    if (!stdin || this.finished || this.closing)
      return Promise.reject(new Error('Not connected'))
    return new Promise<void>((resolve, reject) => {
      stdin.write(serializeMessage(message), error => error ? reject(error) : resolve())
    }).catch(error => this.writeFailed(asError(error)))
  }

  /**
   * A write fails (EPIPE) when the server died, typically before it could
   * even start (a missing binary). Wait a moment for the exit, so the error
   * says how it ended and the stderr tail that explains why is complete.
   */
  private async writeFailed(error: Error): Promise<never> {
    const exited = this.exited
    if (exited && await settlesWithin(exited, STDIN_CLOSE_GRACE_MS)) {
      const exit = await exited
      if (exit) {
        const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.exitCode}`
        throw new Error(`The MCP server ${how} (${error.message})`, { cause: error })
      }
    }
    throw error
  }

  /**
   * Close stdin and give the server a moment to exit; then ask the context to
   * stop it (SIGTERM to its process group), and SIGKILL it if that does not
   * work either. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const { handle, exited } = this
      if (handle && exited) {
        handle.stdin.end()
        if (!await settlesWithin(exited, STDIN_CLOSE_GRACE_MS)) {
          handle.kill()
          if (!await settlesWithin(exited, TERMINATE_GRACE_MS)) {
            handle.kill('SIGKILL')
            await exited
          }
        }
      }
      this.finish()
    })()
    return this.closing
  }

  /** Signal the server's process group now (the hard stop when a close hangs). */
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.handle?.kill(signal)
  }

  private finish(): void {
    if (this.finished)
      return
    this.finished = true
    this.buffer.clear()
    this.onclose?.()
  }
}

/**
 * The transport of a `scope: 'context'` stdio server. Throws when there is no
 * execution context, or one that cannot stream a process's stdio: falling
 * back to the host would run the server somewhere the config did not ask for.
 */
export function createContextTransport(
  config: McpServerConfig,
  options: { execution?: ExecutionContext, onStderr?: (chunk: string) => void },
): { transport: ContextStdioTransport, stderrTail: () => string } {
  const { execution } = options
  const where = `MCP server "${config.name}"`
  if (!execution)
    throw new Error(`${where} has scope 'context' but no execution context was given (pass \`execution\` to connectMcpServers)`)
  if (!execution.capabilities.execStream)
    throw new Error(`${where} has scope 'context' but the "${execution.type}" execution context cannot stream a process's stdio (capabilities.execStream is false)`)
  const transport = new ContextStdioTransport(execution, contextServerCommand(config), {
    cwd: config.cwd,
    env: config.strictEnv ? undefined : config.env,
    onStderr: options.onStderr,
  })
  return { transport, stderrTail: transport.stderrTail }
}

/** SIGKILL a context-scoped server whose close hung; other transports are left alone. */
export function killContextTransport(transport: Transport): void {
  if (transport instanceof ContextStdioTransport)
    transport.kill('SIGKILL')
}
