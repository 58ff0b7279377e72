import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { Timer } from '../core/timer'
import type { McpPoolAcquireOptions, McpPooledServerInfo, McpServerConfig, McpServerLease, McpServerPool, McpServerPoolOptions } from './types'
import { withGetters } from '../core/fast-accessors'
import { mergeObjects } from '../core/merge-objects'
import { withTimeout } from '../core/timeout'
import { clampTimerDelay, startTimer } from '../core/timer'
import { createMcpClient } from './elicitation'
import { holdTransport, holdWhileClosing } from './event-loop-hold'
import { createTransport, transportPid } from './transports'

/** Whether a config may go through a pool: host-spawned stdio servers only. */
export function isPoolableServer(config: McpServerConfig): boolean {
  return config.transport === 'stdio' && config.scope !== 'context'
}

interface LeaseHooks {
  onStderr?: (chunk: string) => void
  onClose?: () => void
}

interface Entry {
  key: string
  info: Pick<McpPooledServerInfo, 'command' | 'args' | 'poolKey'>
  client: Client
  transport: Transport
  pid?: number
  refs: number
  /** Leases that want the process to keep the event loop alive (see event-loop-hold.ts). */
  holders: number
  started: boolean
  /** The transport closed: the process is gone. */
  gone: boolean
  ready: Promise<void>
  closing?: Promise<void>
  idleTimer?: Timer
  closeTimeoutMs: number
  stderrTail: () => string
  hooks: Set<LeaseHooks>
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

/** Add the stderr tail to a start failure, since that is where a crashing server says why. */
function withStderr(error: unknown, tail: string): Error {
  const err = asError(error)
  const trimmed = tail.trim()
  if (trimmed && !err.message.includes(trimmed))
    err.message = `${err.message}\nserver stderr:\n${trimmed}`
  return err
}

/**
 * Everything that changes the spawned process. `env` is compared by content, so
 * key order does not matter. Names, timeouts and tool filters are left out:
 * they only shape what each connection does with the process.
 */
function identity(config: McpServerConfig, poolKey: string | undefined, nextPrivate: () => string): { key: string, poolKey?: string } {
  const env = config.env ? Object.entries(config.env).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0) : []
  const base = [config.command, config.args ?? [], config.cwd ?? null, env, config.strictEnv === true]
  if (config.shared !== false)
    return { key: JSON.stringify(base) }
  // Not shared, and no session to share it with: a process of its own, still reaped by `close()`.
  if (poolKey === undefined)
    return { key: JSON.stringify([...base, nextPrivate()]) }
  return { key: JSON.stringify([...base, poolKey]), poolKey }
}

/**
 * Create a pool that shares host-spawned stdio MCP server processes between
 * `connectMcpServers` calls (pass it as `options.pool`). Processes are keyed
 * by what changes them (command, args, cwd, env, strictEnv, and the
 * `poolKey` of `shared: false` servers) and counted: the last connection to
 * close closes the process. Each connection still sends its own `tools/list`
 * over the shared client, so tool lists are never stale.
 */
export function createMcpServerPool(options: McpServerPoolOptions = {}): McpServerPool {
  const idleMs = options.idleMs ?? 0
  const entries = new Map<string, Entry>()
  let closed = false
  let privateKeys = 0

  /** A started process keeps the event loop alive while some lease holds it, or while it closes. */
  const applyHold = (entry: Entry) => {
    if (entry.started && !entry.gone && !entry.closing)
      holdTransport(entry.transport, entry.holders > 0)
  }

  const drop = (entry: Entry) => {
    if (entries.get(entry.key) === entry)
      entries.delete(entry.key)
  }

  /** Close one process within its bound; a child whose close hangs is SIGKILLed. */
  const closeEntry = (entry: Entry): Promise<void> => entry.closing ??= (async () => {
    entry.idleTimer?.clear()
    drop(entry)
    const letGo = holdWhileClosing(entry.transport)
    // The transport forgets the child as soon as its close starts, so take the pid first.
    const pid = entry.pid ?? transportPid(entry.transport)
    try {
      await withTimeout(entry.client.close(), entry.closeTimeoutMs, `MCP server pool close of "${entry.info.command}"`)
    }
    catch {
      if (pid !== undefined) {
        try {
          process.kill(pid, 'SIGKILL')
        }
        catch {
          // Already gone.
        }
      }
    }
    finally {
      letGo()
    }
  })()

  const start = (key: string, info: Entry['info'], config: McpServerConfig, opts: McpPoolAcquireOptions): Entry => {
    const hooks = new Set<LeaseHooks>()
    const { transport, stderrTail } = createTransport(config, {
      onStderr: (chunk) => {
        for (const hook of hooks)
          hook.onStderr?.(chunk)
      },
    })
    // Shared between sessions, so no one session's host answers its elicitations: none are announced.
    const client = createMcpClient(opts.clientInfo, config.name)
    const entry: Entry = {
      key,
      info,
      client,
      transport,
      refs: 0,
      holders: 0,
      started: false,
      gone: false,
      ready: Promise.resolve(),
      closeTimeoutMs: opts.closeTimeoutMs,
      stderrTail,
      hooks,
    }
    const timeoutMs = opts.connectTimeoutMs
    entry.ready = (async () => {
      const abort = new AbortController()
      try {
        await withTimeout(client.connect(transport, { signal: abort.signal, timeout: clampTimerDelay(timeoutMs) }), timeoutMs, `MCP server "${config.name}" connect`)
      }
      catch (error) {
        // A failed start is never cached: the next acquire spawns afresh.
        abort.abort()
        void closeEntry(entry)
        throw error
      }
      entry.pid = transportPid(transport)
      entry.started = true
      applyHold(entry)
      // The pool owns the client's handlers; connections hear about a dead process through `onClose`.
      client.onclose = () => {
        entry.gone = true
        drop(entry)
        entry.idleTimer?.clear()
        for (const hook of [...hooks])
          hook.onClose?.()
      }
    })()
    entry.ready.catch(() => {})
    return entry
  }

  const acquire = async (config: McpServerConfig, opts: McpPoolAcquireOptions): Promise<McpServerLease> => {
    if (closed)
      throw new Error('MCP server pool is closed')
    if (!isPoolableServer(config))
      throw new Error(`MCP server "${config.name}" cannot be pooled (only host-spawned stdio servers can)`)
    const { key, poolKey } = identity(config, opts.poolKey, () => `private:${++privateKeys}`)
    let entry = entries.get(key)
    if (!entry) {
      entry = start(key, { command: config.command!, args: [...config.args ?? []], poolKey }, config, opts)
      entries.set(key, entry)
    }
    const held = entry
    held.idleTimer?.clear()
    held.idleTimer = undefined
    held.refs++
    held.holders++
    let holding = true
    const hooks: LeaseHooks = { onStderr: opts.onStderr, onClose: opts.onClose }
    held.hooks.add(hooks)

    let released = false
    const release = async () => {
      if (released)
        return
      released = true
      held.hooks.delete(hooks)
      held.refs--
      if (holding) {
        holding = false
        held.holders--
        applyHold(held)
      }
      if (held.refs > 0 || held.closing || held.gone)
        return
      if (idleMs > 0 && !closed) {
        held.idleTimer = startTimer(idleMs, () => void closeEntry(held)).unref()
        return
      }
      await closeEntry(held)
    }

    try {
      await held.ready
    }
    catch (error) {
      await release()
      throw withStderr(error, held.stderrTail())
    }
    if (held.closing || held.gone) {
      await release()
      throw new Error(`MCP server "${config.name}" went away while connecting`)
    }
    const holdEventLoop = (hold: boolean) => {
      if (released || hold === holding)
        return
      holding = hold
      held.holders += hold ? 1 : -1
      applyHold(held)
    }
    return { client: held.client, transport: held.transport, pid: held.pid, stderrTail: held.stderrTail, release, holdEventLoop }
  }

  let closing: Promise<void> | undefined
  return withGetters<McpServerPool, 'size'>({
    servers: () => Array.from(entries.values(), entry => (mergeObjects(entry.info, { args: [...entry.info.args], pid: entry.pid, refs: entry.refs, state: !entry.started ? 'starting' : entry.refs > 0 ? 'ready' : 'idle' }))),
    acquire,
    close: () => closing ??= (async () => {
      closed = true
      await Promise.all(Array.from(entries.values(), closeEntry))
    })(),
  }, { size: () => entries.size })
}
