/**
 * Whether a host-spawned stdio MCP server keeps Node's event loop alive.
 *
 * A child process and its stdout/stderr pipes are handles Node waits for, so
 * a program with a connected server never exits by itself. An agent holds
 * its servers only while a run is in flight (see decisions,
 * 2026-12-02-idle-agent-exit): between runs the child and its pipes are
 * unref'd, and a program that is done exits. The child then goes with it:
 * its stdin closes when the host exits, and a still-running idle child is
 * sent SIGTERM from the host's `exit` event.
 *
 * The SDK's stdio transport exposes the child's pid but not the child, so it
 * is read from the transport's `_process` field. If a later SDK release
 * renames it, nothing here breaks: the child simply stays held, as before
 * (the exit tests in test/mcp/idle-exit.test.ts would say so).
 */

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ChildProcess } from 'node:child_process'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { eventStreamGateOf } from './event-stream-gate'

/** Something Node can stop waiting for: a child process or a pipe. */
interface Referable {
  ref: () => unknown
  unref: () => unknown
}

function isReferable(value: unknown): value is Referable {
  return typeof (value as Referable | null)?.ref === 'function' && typeof (value as Referable | null)?.unref === 'function'
}

/** The child a started stdio transport runs, when it can be found. */
export function stdioChildOf(transport: Transport): ChildProcess | undefined {
  if (!(transport instanceof StdioClientTransport))
    return undefined
  const child = (transport as unknown as { _process?: unknown })._process
  return isReferable(child) && typeof (child as ChildProcess).kill === 'function' ? child as ChildProcess : undefined
}

/** Idle children still running, sent SIGTERM when the host exits. */
const idleChildren = new Set<ChildProcess>()
let exitListenerAdded = false

function stopIdleChildren(): void {
  for (const child of idleChildren) {
    try {
      child.kill('SIGTERM')
    }
    catch {
      // Already gone.
    }
  }
}

function trackIdle(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null)
    return
  if (!exitListenerAdded) {
    exitListenerAdded = true
    process.on('exit', stopIdleChildren)
  }
  if (!idleChildren.has(child)) {
    idleChildren.add(child)
    child.once('exit', () => idleChildren.delete(child))
  }
}

/**
 * Make a transport keep the event loop alive (`hold: true`, the default) or
 * not: a stdio child process and its pipes are unref'd, a streamable-HTTP
 * event stream is closed until held again (event-stream-gate.ts). SSE
 * transports are left as they are: their one stream is the session.
 */
export function holdTransport(transport: Transport, hold: boolean): void {
  eventStreamGateOf(transport)?.hold(hold)
  holdChild(transport, hold)
}

/**
 * Hold a stdio child while it closes, so a host awaiting the close is not
 * left with an empty event loop (Node would end an unsettled top-level await).
 * Call what it returns once the close is over, done or abandoned: the child's
 * pipes are destroyed and the child unref'd for good. The SDK's close can
 * end without the pipes closing, since any process holding them keeps them
 * open: a server started through a wrapper (`sh -c`, `npx`, `uvx`) outlives
 * the wrapper's exit or SIGKILL, and pipes held here kept the host process
 * from ever exiting.
 */
export function holdWhileClosing(transport: Transport): () => void {
  // Taken now: the transport forgets its child as soon as its close starts.
  const child = stdioChildOf(transport)
  holdChild(transport, true)
  return () => {
    if (child)
      letGo(child)
  }
}

function letGo(child: ChildProcess): void {
  for (const pipe of [child.stdin, child.stdout, child.stderr])
    pipe?.destroy()
  child.unref()
  idleChildren.delete(child)
}

function holdChild(transport: Transport, hold: boolean): void {
  const child = stdioChildOf(transport)
  if (!child)
    return
  const handles: unknown[] = [child, child.stdin, child.stdout, child.stderr]
  for (const handle of handles) {
    if (!isReferable(handle))
      continue
    if (hold)
      handle.ref()
    else
      handle.unref()
  }
  if (hold)
    idleChildren.delete(child)
  else
    trackIdle(child)
}
