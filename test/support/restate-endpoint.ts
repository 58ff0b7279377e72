/**
 * Serve Restate services from this process on a free loopback port over
 * HTTP/2 cleartext (what the server speaks to deployments), with a `close()`
 * that ends every open stream, so a test can stop its endpoint.
 */
import type { Http2Session } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:http2'
import * as restate from '@restatedev/restate-sdk'

// The SDK logs every invocation at info; tests want warnings only.
process.env.RESTATE_LOGGING ??= 'WARN'

export interface ServedEndpoint {
  url: string
  port: number
  close: () => Promise<void>
}

export async function serveEndpoint(services: Parameters<typeof restate.createEndpointHandler>[0]['services'], port = 0): Promise<ServedEndpoint> {
  const sessions = new Set<Http2Session>()
  const server = createServer(restate.createEndpointHandler({ services }))
  server.on('session', (session) => {
    sessions.add(session)
    session.once('close', () => sessions.delete(session))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const bound = (server.address() as AddressInfo).port
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close: () => new Promise<void>((resolve) => {
      for (const session of sessions)
        session.destroy()
      server.close(() => resolve())
    }),
  }
}
