/**
 * A bound on what the host writes to a stdio server that does not read it.
 *
 * Every request a server sends is answered, even one for a method nobody
 * handles, and the SDK's stdio transport queues each answer in the child's
 * stdin for as long as the pipe is full. A server that stops reading its
 * stdin while it floods the client with requests made the host hold every
 * answer, with a promise and a `drain` listener each: 2 GB in 18 seconds.
 * Past the bound the connection is closed, as the SDK closes one whose
 * server writes more than its read buffer takes.
 */

import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { stdioChildOf } from './event-loop-hold'

/** Most bytes written to a stdio server's stdin that it has not read yet. */
export const MAX_MCP_STDIN_BACKLOG_BYTES = 10 * 1024 * 1024

/**
 * Most messages to a stdio server waiting for its stdin to drain. Each weighs
 * more than its bytes (a promise and a listener), so small answers are
 * counted as well as measured.
 */
export const MAX_MCP_STDIN_BACKLOG_WRITES = 10_000

/**
 * Make `transport` close itself, reporting why to `report`, when a message
 * is to be sent while its server's unread input is past either bound. The
 * server's output is no longer read from then on, so a flood stops at once
 * rather than when the process is gone, and every later send fails.
 */
export function capStdinBacklog(transport: StdioClientTransport, server: string, report: (error: Error) => void): void {
  const send = transport.send.bind(transport)
  let waiting = 0
  let stopped = false
  const stop = () => {
    stopped = true
    report(new Error(`MCP server "${server}" does not read its input (${waiting} messages waiting); the connection is closed`))
    const child = stdioChildOf(transport)
    child?.stdout?.destroy()
    // What was written and never read: let it go now rather than when the child is gone.
    child?.stdin?.destroy()
    void transport.close().catch(() => {})
  }
  transport.send = async (message: JSONRPCMessage) => {
    const stdin = stdioChildOf(transport)?.stdin
    if (!stopped && (waiting >= MAX_MCP_STDIN_BACKLOG_WRITES || (stdin?.writableLength ?? 0) > MAX_MCP_STDIN_BACKLOG_BYTES))
      stop()
    if (stopped)
      throw new Error(`MCP server "${server}" does not read its input; the connection is closed`)
    // Each message waiting for the pipe to drain adds a `drain` listener: up to the bound, that is no leak to warn of.
    if (stdin && stdin.getMaxListeners() < MAX_MCP_STDIN_BACKLOG_WRITES)
      stdin.setMaxListeners(MAX_MCP_STDIN_BACKLOG_WRITES + 1)
    waiting++
    try {
      return await send(message)
    }
    finally {
      waiting--
    }
  }
}
