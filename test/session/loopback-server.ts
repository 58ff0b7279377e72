import type { RequestListener } from 'node:http'
import type { Socket } from 'node:net'
import { createServer } from 'node:http'

/** An HTTP server on 127.0.0.1 with a free port, for the remote store's tests. */
export interface LoopbackServer {
  url: string
  port: number
  /** Every socket the server accepted. */
  sockets: Socket[]
  close: () => Promise<void>
}

const open: LoopbackServer[] = []

/** Serve `listener` on 127.0.0.1; `closeLoopbackServers` (in an `afterEach`) ends every server and connection. */
export async function serveOnLoopback(listener: RequestListener): Promise<LoopbackServer> {
  const server = createServer(listener)
  const sockets: Socket[] = []
  server.on('connection', socket => sockets.push(socket))
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  const handle: LoopbackServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    sockets,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
  open.push(handle)
  return handle
}

export async function closeLoopbackServers(): Promise<void> {
  await Promise.all(open.splice(0).map(server => server.close()))
}
