/**
 * A server on 127.0.0.1 that answers each request with bytes written as
 * they are, for answers no HTTP server library would send (a 101 nobody
 * asked for, a body shorter than its content-length, a chunked body with no
 * last chunk). The answer is written, then the socket destroyed without a
 * clean close, so a cut-short body is not helped along.
 */

import type { AddressInfo, Socket } from 'node:net'
import { createServer } from 'node:net'

export interface RawHttpServer {
  readonly port: number
  close: () => void
}

/** Start the server; `answer` gets the request's path and returns the raw reply, or `undefined` to leave the socket open. */
export async function startRawHttpServer(answer: (path: string) => string | undefined): Promise<RawHttpServer> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    let head = ''
    socket.on('data', (data) => {
      head += data.toString('latin1')
      if (!head.includes('\r\n\r\n'))
        return
      const reply = answer(head.split(' ')[1])
      if (reply !== undefined)
        socket.write(reply, () => socket.destroy())
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      sockets.forEach(socket => socket.destroy())
      server.close()
    },
  }
}
